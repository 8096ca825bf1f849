import { LeaseRecord } from '../leases/lease-store';
import { END_REASONS, EndReason, HoldTerms, OlderOutboxBill, OutboxBill, OutboxLineReturn, OutboxRecord } from './bill-outbox';

type Fields = Record<string, unknown>;

const isObject = (value: unknown): value is Fields => typeof value === 'object' && value !== null;
const isCount = (value: unknown): boolean => Number.isSafeInteger(value) && (value as number) >= 0;

function isUsage(r: Fields): boolean {
  return (
    typeof r.requestId === 'string' &&
    typeof r.accountId === 'string' &&
    typeof r.model === 'string' &&
    (r.payment === 'paid' || r.payment === 'free') &&
    Number.isSafeInteger(r.promptTokens) &&
    Number.isSafeInteger(r.completionTokens) &&
    typeof r.usageEstimated === 'boolean' &&
    (r.endReason === undefined || END_REASONS.includes(r.endReason as EndReason))
  );
}

const isHold = (value: unknown): value is HoldTerms =>
  isObject(value) && isCount(value.amountMicro) && isCount(value.inputMicroPerMillion) && isCount(value.outputMicroPerMillion);

const isUsageRecord = (r: Fields): r is Fields & OlderOutboxBill => r.kind === undefined && isUsage(r);
const isOutboxBill = (r: Fields): r is Fields & OutboxBill =>
  r.kind === 'bill' && isUsage(r) && isHold(r.hold) && isCount(r.chargeMicro) && (r.keyId === undefined || typeof r.keyId === 'string');
const isLineReturn = (r: Fields): r is Fields & OutboxLineReturn =>
  r.kind === 'return' && typeof r.accountId === 'string' && isCount(r.returnedTotalMicro);

const isStringMap = (value: unknown): boolean => isObject(value) && Object.values(value).every((v) => typeof v === 'string');

/** The JSON object of `text`, or undefined; a trace context that is not one is left out: the bill matters, the link does not. */
function parseObject(text: string): Fields | undefined {
  try {
    const parsed: unknown = JSON.parse(text);
    if (!isObject(parsed)) return undefined;
    if (parsed.traceContext !== undefined && !isStringMap(parsed.traceContext)) delete parsed.traceContext;
    return parsed;
  } catch {
    return undefined;
  }
}

/** An outbox record as Redis keeps it (JSON), or undefined when the text is not one (not written by this code). */
export function parseOutboxRecord(text: string): OutboxRecord | undefined {
  const r = parseObject(text);
  return r && (isUsageRecord(r) || isOutboxBill(r) || isLineReturn(r)) ? r : undefined;
}

/** A lease as Redis keeps it (JSON), or undefined when the text is not one; a hold or max_tokens of the wrong shape makes it none. */
export function parseLeaseRecord(text: string): LeaseRecord | undefined {
  const r = parseObject(text);
  if (!r || !isUsageRecord(r)) return undefined;
  if (r.hold !== undefined && !isHold(r.hold)) return undefined;
  if (r.maxTokens !== undefined && !isCount(r.maxTokens)) return undefined;
  return r as LeaseRecord;
}
