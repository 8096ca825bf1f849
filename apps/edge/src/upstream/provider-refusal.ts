import { AppError, ErrorDescription } from '@gw/errors';

/** A refusal by the provider, passed on with its status and code (docs/api.md#every-error-code). */
export class ProviderRefusal extends Error {
  constructor(private readonly description: ErrorDescription) {
    super(description.message);
    this.name = 'ProviderRefusal';
  }

  describe(): ErrorDescription {
    return this.description;
  }
}

interface ProviderErrorBody {
  error?: { message?: unknown; code?: unknown; type?: unknown; param?: unknown };
}

/** UPSTREAM_ERROR: the provider's answer is empty or not JSON; 502, or the provider's own error status. */
export function upstreamError(status: number): AppError {
  return new AppError(
    'UPSTREAM_ERROR',
    'The provider sent an answer that is empty or not JSON.',
    { upstreamStatus: status },
    status >= 400 ? status : 502,
  );
}

/**
 * Turns a provider error reply (status 300 or more, body already parsed) into ours: the
 * provider's status and code, our type for the status, and a message ending with the provider's
 * request id. An answer without an `error` object is UPSTREAM_ERROR.
 */
export function refusalFromReply(status: number, parsed: unknown, providerRequestId: string | undefined): Error {
  const error = (parsed as ProviderErrorBody | null | undefined)?.error;
  if (!error || typeof error !== 'object') return upstreamError(status);
  const text = typeof error.message === 'string' ? error.message : 'The provider refused the request.';
  const code = typeof error.code === 'string' ? error.code : typeof error.type === 'string' ? error.type : 'provider_error';
  return new ProviderRefusal({
    status,
    code,
    message: `${text} Provider request id: ${providerRequestId ?? 'unknown'}`,
    param: typeof error.param === 'string' ? error.param : null,
  });
}
