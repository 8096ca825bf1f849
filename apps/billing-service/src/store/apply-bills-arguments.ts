import { FilingBill, LineReturnRecord } from './credit-line-records';

/**
 * The arguments of billing.apply_bills, one array per column it fills: the bills' fields (the
 * function unnests them into one row per bill), then the line returns' (one row per return).
 */
export interface ApplyBillsArguments {
  requestId: string[];
  accountId: string[];
  model: string[];
  paid: boolean[];
  promptTokens: number[];
  completionTokens: number[];
  usageEstimated: boolean[];
  heldMicro: number[];
  inputMicroPerMillion: number[];
  outputMicroPerMillion: number[];
  chargeMicro: number[];
  returnAccountId: string[];
  returnedTotalMicro: number[];
  endReason: string[];
  /** The time each bill is filed under; null: the time in its request id. */
  requestAt: (Date | null)[];
  /** Why each bill is set aside; null: filed, unless its month is archived. */
  setAside: (string | null)[];
  /** The key each bill's request was made with; null: none named. */
  keyId: (string | null)[];
}

/** The arguments in the function's order (its current definition: migrations/sql-functions.md), each with its SQL type. */
export const APPLY_BILLS_ARGUMENT_ORDER: [keyof ApplyBillsArguments, string][] = [
  ['requestId', 'text[]'],
  ['accountId', 'text[]'],
  ['model', 'text[]'],
  ['paid', 'boolean[]'],
  ['promptTokens', 'bigint[]'],
  ['completionTokens', 'bigint[]'],
  ['usageEstimated', 'boolean[]'],
  ['heldMicro', 'bigint[]'],
  ['inputMicroPerMillion', 'bigint[]'],
  ['outputMicroPerMillion', 'bigint[]'],
  ['chargeMicro', 'bigint[]'],
  ['returnAccountId', 'text[]'],
  ['returnedTotalMicro', 'bigint[]'],
  ['endReason', 'text[]'],
  ['requestAt', 'timestamptz[]'],
  ['setAside', 'text[]'],
  ['keyId', 'text[]'],
];

/** The call of billing.apply_bills: its placeholders typed, its rows in the bills' order. */
export const APPLY_BILLS = `
  SELECT bill_outcome, bill_charged, bill_shortfall, bill_set_aside FROM billing.apply_bills(${APPLY_BILLS_ARGUMENT_ORDER.map(
    ([, type], i) => `$${i + 1}::${type}`,
  ).join(', ')}) ORDER BY bill_index`;

/** The bills and returns as apply_bills takes them: one array per column. */
export function applyBillsArguments(bills: FilingBill[], returns: LineReturnRecord[]): ApplyBillsArguments {
  const column = <T>(pick: (b: FilingBill) => T) => bills.map(pick);
  return {
    requestId: column((b) => b.requestId),
    accountId: column((b) => b.accountId),
    model: column((b) => b.model),
    paid: column((b) => b.paid),
    promptTokens: column((b) => b.promptTokens),
    completionTokens: column((b) => b.completionTokens),
    usageEstimated: column((b) => b.usageEstimated),
    heldMicro: column((b) => b.heldMicro),
    inputMicroPerMillion: column((b) => b.inputMicroPerMillion),
    outputMicroPerMillion: column((b) => b.outputMicroPerMillion),
    chargeMicro: column((b) => b.chargeMicro),
    returnAccountId: returns.map((r) => r.accountId),
    returnedTotalMicro: returns.map((r) => r.returnedTotalMicro),
    endReason: column((b) => b.endReason),
    requestAt: column((b) => b.requestAt ?? null),
    setAside: column((b) => b.setAside ?? null),
    keyId: column((b) => b.keyId ?? null),
  };
}

/** The arguments as query parameters, $1 to $17 in APPLY_BILLS_ARGUMENT_ORDER. */
export const applyBillsParameters = (args: ApplyBillsArguments): unknown[] => APPLY_BILLS_ARGUMENT_ORDER.map(([name]) => args[name]);
