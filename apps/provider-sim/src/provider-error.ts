/** The provider's error body: one shape for every refusal and fault. */
export interface ProviderErrorBody {
  error: { message: string; type: string; param: string | null; code: string };
}

/** The error `type` the provider gives each status. */
export function errorType(status: number): string {
  if (status === 401) return 'authentication_error';
  if (status === 403) return 'permission_error';
  if (status === 429) return 'rate_limit_error';
  if (status >= 500) return 'server_error';
  return 'invalid_request_error';
}

function defaultCode(status: number): string {
  if (status === 401) return 'invalid_api_key';
  if (status === 429) return 'rate_limit_exceeded';
  if (status >= 500) return 'server_error';
  return 'invalid_request_error';
}

/** Builds `{error:{message,type,param,code}}`; type follows the status, code defaults by status too. */
export function providerErrorBody(status: number, message: string, param: string | null = null, code?: string): ProviderErrorBody {
  return { error: { message, type: errorType(status), param, code: code ?? defaultCode(status) } };
}
