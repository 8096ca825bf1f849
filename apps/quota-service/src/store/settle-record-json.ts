import { SettleRecord } from './settle-outbox';

function isSettleRecord(value: unknown): value is SettleRecord {
  if (typeof value !== 'object' || value === null) return false;
  const r = value as Record<string, unknown>;
  return (
    typeof r.requestId === 'string' &&
    typeof r.accountId === 'string' &&
    typeof r.model === 'string' &&
    (r.payment === 'paid' || r.payment === 'free') &&
    Number.isSafeInteger(r.promptTokens) &&
    Number.isSafeInteger(r.completionTokens) &&
    typeof r.usageEstimated === 'boolean'
  );
}

const isStringMap = (value: unknown): boolean =>
  typeof value === 'object' && value !== null && Object.values(value).every((v) => typeof v === 'string');

/**
 * A bill as Redis keeps it (JSON), or undefined when the text is not one (not written by this
 * code). A trace context that is not one is left out: the bill matters, the link does not.
 */
export function parseSettleRecord(text: string): SettleRecord | undefined {
  try {
    const parsed: unknown = JSON.parse(text);
    if (!isSettleRecord(parsed)) return undefined;
    if (parsed.traceContext !== undefined && !isStringMap(parsed.traceContext)) delete parsed.traceContext;
    return parsed;
  } catch {
    return undefined;
  }
}
