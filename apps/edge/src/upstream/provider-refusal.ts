import { AppError, ErrorDescription } from '@gw/errors';
import { ProviderReply } from './provider-client';

/** A refusal by the provider, passed on with its status and code (SPEC section 7). */
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

/**
 * Turns a provider error reply into ours: the provider's status and code, our type for the
 * status, and a message ending with the provider's request id. An answer that is empty or not
 * JSON is UPSTREAM_ERROR with upstreamStatus.
 */
export function refusalFromReply(reply: ProviderReply): Error {
  let parsed: ProviderErrorBody | undefined;
  try {
    parsed = JSON.parse(reply.body.toString('utf8')) as ProviderErrorBody;
  } catch {
    parsed = undefined;
  }
  const error = parsed?.error;
  if (!error || typeof error !== 'object') {
    const status = reply.status >= 400 ? reply.status : 502;
    return new AppError('UPSTREAM_ERROR', 'The provider sent an answer that is empty or not JSON.', { upstreamStatus: reply.status }, status);
  }
  const text = typeof error.message === 'string' ? error.message : 'The provider refused the request.';
  const code = typeof error.code === 'string' ? error.code : typeof error.type === 'string' ? error.type : 'provider_error';
  return new ProviderRefusal({
    status: reply.status,
    code,
    message: `${text} (provider request id: ${reply.providerRequestId ?? 'unknown'})`,
    param: typeof error.param === 'string' ? error.param : null,
  });
}
