/**
 * Every error code the gateway itself produces, with its HTTP status: the one table of codes.
 * docs/api.md#every-error-code and docs/openapi.yaml say the same, and
 * tools/deploy-check/test/error-codes.test.ts checks that the three agree.
 */
export const ERROR_CODES = {
  INVALID_JSON: 400,
  INVALID_PARAMETER: 400,
  MODEL_NOT_FOUND: 400,
  MODEL_NO_VISION: 400,
  IMAGE_NOT_IN_USER_MESSAGE: 400,
  TOO_MANY_IMAGES: 400,
  MISSING_API_KEY: 401,
  INVALID_API_KEY: 401,
  FREE_TIER_DAILY_LIMIT: 402,
  FREE_TIER_EXHAUSTED: 402,
  FREE_TIER_MODEL: 402,
  FREE_TIER_THINKING: 402,
  ACCOUNT_SUSPENDED: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  rate_limit_error: 429,
  concurrency_limit: 429,
  INTERNAL_ERROR: 500,
  UPSTREAM_ERROR: 502,
  UPSTREAM_INTERRUPTED: 502,
  UPSTREAM_DOWN: 503,
} as const;

/** A code the gateway itself produces. */
export type ErrorCode = keyof typeof ERROR_CODES;

/**
 * The statuses a code also comes with, besides its own (an AppError's `status` argument): the
 * same reason answered where the endpoint makes it another status.
 */
export const OTHER_STATUSES: Readonly<Partial<Record<ErrorCode, readonly number[]>>> = {
  /** `GET /v1/models/{id}` for an id not served. */
  MODEL_NOT_FOUND: [404],
};
