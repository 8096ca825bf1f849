import { LeaseRecord } from '../leases/lease-store';
import { BillRecord, END_REASONS, EndReason, HoldTerms, LineReturnRecord, OutboxRecord, SettleRecord } from './settle-outbox';

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

const isSettleRecord = (r: Fields): r is Fields & SettleRecord => r.kind === undefined && isUsage(r);
const isBillRecord = (r: Fields): r is Fields & BillRecord => r.kind === 'bill' && isUsage(r) && isHold(r.hold) && isCount(r.chargeMicro);
const isLineReturn = (r: Fields): r is Fields & LineReturnRecord =>
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
  return r && (isSettleRecord(r) || isBillRecord(r) || isLineReturn(r)) ? r : undefined;
}

/** A lease as Redis keeps it (JSON), or undefined when the text is not one; a hold or max_tokens of the wrong shape makes it none. */
export function parseLeaseRecord(text: string): LeaseRecord | undefined {
  const r = parseObject(text);
  if (!r || !isSettleRecord(r)) return undefined;
  if (r.hold !== undefined && !isHold(r.hold)) return undefined;
  if (r.maxTokens !== undefined && !isCount(r.maxTokens)) return undefined;
  return r as LeaseRecord;
}
