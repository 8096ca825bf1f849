import { chargeWithinHold } from '@gw/money';
import { requireCount, requireId } from '@gw/service-kit';
import { LedgerBill } from '../store/credit-line-records';
import { requireAmount, requireCompletionTokens, requireModel, requirePrice, requirePromptTokens } from './field-bounds';
import { DomainError } from '@gw/errors';

/** The latest time a JavaScript Date holds, ms: an admitted time past it is no time at all. */
const MAX_TIME_MS = 8.64e15;

/**
 * Refuses, with INVALID_ARGUMENT, a bill whose fields are past their bounds or whose charge does
 * not follow from them: a paid bill charges min(cost of its tokens at its prices, its hold), with
 * the cost worked out by chargeWithinHold; a free bill charges nothing.
 */
export function checkBill(bill: LedgerBill): void {
  requireId('request_id', bill.requestId);
  requireId('account_id', bill.accountId);
  requireModel(bill.model);
  requirePromptTokens(bill.promptTokens);
  requireCompletionTokens('completion_tokens', bill.completionTokens);
  requireAmount('held_micro_lyd', bill.heldMicro);
  requirePrice('input_micro_lyd_per_million', bill.inputMicroPerMillion);
  requirePrice('output_micro_lyd_per_million', bill.outputMicroPerMillion);
  requireAmount('charge_micro_lyd', bill.chargeMicro);
  if (bill.admittedAtMs !== undefined) requireCount('admitted_at_ms', bill.admittedAtMs, MAX_TIME_MS);
  if (bill.keyId !== undefined) requireId('key_id', bill.keyId);
  if (!bill.paid) {
    if (bill.chargeMicro !== 0) throw new DomainError('invalid-argument', `a free bill charges nothing, not ${bill.chargeMicro}`);
    return;
  }
  const due = chargeWithinHold(bill.promptTokens, bill.completionTokens, bill, bill.heldMicro);
  if (bill.chargeMicro !== due) {
    throw new DomainError(
      'invalid-argument',
      `charge ${bill.chargeMicro} is not min(cost of the tokens, held ${bill.heldMicro}) = ${due} micro-LYD`,
    );
  }
}

/** A checked bill as the ledger records it: a free one with hold, prices and charge 0, as RecordFree writes it. */
export function asRecorded(bill: LedgerBill): LedgerBill {
  return bill.paid ? bill : { ...bill, heldMicro: 0, inputMicroPerMillion: 0, outputMicroPerMillion: 0 };
}
