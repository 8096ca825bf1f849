import { createHash } from 'node:crypto';
import { AuditValue } from '@gw/service-kit';
import { LineReturnRecord } from './credit-line-records';
import { LinkRow } from './pg-money-links';
import { MoneyLinkDraft } from './pg-money-links';

/** Who appends the links of money the service moves itself (an operator's change names the operator). */
const SERVICE_ACTOR = 'billing-service';

/** A charge of a batch as applied: what it charged (negative for a correction that gave back), by billing id. */
export interface AppliedCharge {
  accountId: string;
  requestId: string;
  chargedMicro: number;
  corrected: boolean;
}

/**
 * The link of one applied batch of charges (`charges-applied`): one row per charge that moved a
 * balance (a charge of 0, all shortfall, moves none), and, beside them, how many line returns the
 * batch applied and their digest (a return moves the line, not the balance).
 */
export function chargesLink(
  charges: readonly AppliedCharge[],
  returns: readonly LineReturnRecord[],
  via: string,
): { draft: MoneyLinkDraft; rows: LinkRow[] } {
  const moved = charges.filter((c) => c.chargedMicro !== 0);
  const details: Record<string, AuditValue> = {
    via,
    charges: moved.filter((c) => !c.corrected).length,
    corrections: moved.filter((c) => c.corrected).length,
    // Exact whatever the batch's sum (each charge is at most 2^53 - 1): a decimal string.
    amountMicro: moved.reduce((sum, c) => sum + BigInt(c.chargedMicro), 0n).toString(),
    returns: returns.length,
  };
  if (returns.length) {
    const lines = returns.map((r) => `${r.accountId}|${r.returnedTotalMicro}`).join('\n');
    details.returnsDigest = createHash('sha256').update(lines).digest('hex');
  }
  return {
    draft: { accountId: null, action: 'charges-applied', details, actor: SERVICE_ACTOR, reason: '' },
    rows: moved.map((c) => ({ kind: 'charge', accountId: c.accountId, requestId: c.requestId, amountMicro: c.chargedMicro })),
  };
}
