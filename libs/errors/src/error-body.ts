import { errorTypeForStatus } from './error-type';

/** The suspension object of a 403 ACCOUNT_SUSPENDED. */
export interface SuspensionInfo {
  until: string | null;
  reason: string | null;
  whatsapp: string;
}

/** Optional fields of the error object; each appears only where docs/api.md#errors says. */
export interface ErrorExtras {
  param?: string | null;
  reason?: 'allowance' | 'request_too_large' | 'paused';
  balance?: number;
  requiredLyd?: number;
  limit?: number;
  suspension?: SuspensionInfo;
  upstreamStatus?: number;
}

/** What every JSON error reply is built from. */
export interface ErrorDescription extends ErrorExtras {
  status: number;
  code: string;
  message: string;
}

/** The `{error:{...}}` JSON body of an error reply: the only place that shape is written. */
export interface ErrorBody {
  error: { message: string; type: string; code: string; param: string | null } & Omit<ErrorExtras, 'param'>;
}

/** Builds the one error body shape the gateway sends, `type` set from the status. */
export function buildErrorBody(err: ErrorDescription): ErrorBody {
  const { status, code, message, param, ...extras } = err;
  const body: ErrorBody['error'] = { message, type: errorTypeForStatus(status), code, param: param ?? null };
  for (const [name, value] of Object.entries(extras)) {
    if (value !== undefined) (body as unknown as Record<string, unknown>)[name] = value;
  }
  return { error: body };
}
