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

/** A bill as Redis keeps it (JSON), or undefined when the text is not one (not written by this code). */
export function parseSettleRecord(text: string): SettleRecord | undefined {
  try {
    const parsed: unknown = JSON.parse(text);
    return isSettleRecord(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}
