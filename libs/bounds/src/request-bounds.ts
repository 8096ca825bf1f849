/*
 * The bounds of what the services accept over gRPC, from docs/api.md: every token count, count and id
 * a method takes has one, and a value past it is refused with INVALID_ARGUMENT, changing nothing
 * (service-kit's requireCount and requireId check them). Bounds of money are in libs/money.
 */

/**
 * Prompt tokens of one request at most: the context window (docs/api.md#limits: 1,000,000 tokens, the
 * provider's figure for both models). Images are inside it: the provider counts each (up to
 * TOKENS_PER_IMAGE) in the prompt. The edge never sends more (it lowers its own estimate and the
 * provider's count to it: a prompt past the window is one the provider does not run).
 */
export const MAX_PROMPT_TOKENS = 1_000_000;

/**
 * Completion tokens of one request at most: the largest max_tokens (docs/api.md#limits: 32,768, larger
 * is lowered), reasoning included.
 */
export const MAX_COMPLETION_TOKENS = 32_768;

/** Images in one request at most (docs/api.md#limits). */
export const MAX_IMAGES = 32;

/** Prompt tokens one image may cost (docs/api.md#limits), inside the prompt's count. */
export const TOKENS_PER_IMAGE = 1_024;

/** The largest request body (docs/api.md#limits: 2 MB); a request's JSON without its images is no larger. */
export const MAX_BODY_BYTES = 2 * 1024 * 1024;

/**
 * The longest account, key or request id. The ids the gateway makes are 36 characters at most
 * (`acct_` or `key_` and 24 hex digits, a UUID); the chat product names its own turns, so there
 * is room. Ids become parts of Redis keys and Postgres rows.
 */
export const MAX_ID_LENGTH = 200;

/** Key uses the edge reports to auth-service in one call at most (RecordKeyUses). */
export const MAX_KEY_USES_PER_CALL = 1_000;

/** The longest model id: a model is added with 1 to 128 visible ASCII characters. */
export const MAX_MODEL_ID_LENGTH = 128;

/**
 * The largest free-tier figure an operator may set, in tokens: an account's daily allowance or
 * the day's pool. Far above any real one (one account at 30 requests a minute, each at the full
 * context window, uses about 4.5 × 10^10 tokens a day), and small enough that a day's
 * reservations added to it stay exact integers.
 */
export const MAX_FREE_TIER_TOKENS = 1_000_000_000_000;
