import { billingV1 } from '@gw/contracts';
import { microToLyd } from '@gw/money';
import { CtlUsageError } from '../parse-args';
import { Command, reasonFlag, required } from './command';

/** Set-aside bills asked of billing-service per page. */
const PAGE_BILLS = 1000;

/** A set-aside bill as `bills set-aside` prints it: amounts in LYD, times in ISO-8601 UTC. */
function shown({ bill, reason, setAsideAt, deliveries }: billingV1.SetAsideBill) {
  return {
    requestId: bill?.requestId ?? '',
    accountId: bill?.accountId ?? '',
    reason,
    admitted: bill?.admittedAtMs === undefined ? null : new Date(bill.admittedAtMs).toISOString(),
    setAside: setAsideAt,
    deliveries,
    model: bill?.model ?? '',
    paid: bill?.paid ?? false,
    promptTokens: bill?.promptTokens ?? 0,
    completionTokens: bill?.completionTokens ?? 0,
    usageEstimated: bill?.usageEstimated ?? false,
    held: microToLyd(bill?.heldMicroLyd ?? 0),
    charge: microToLyd(bill?.chargeMicroLyd ?? 0),
  };
}

/**
 * `bills set-aside`: every bill billing-service set aside instead of filing (admitted too long ago
 * or ahead of its clock, of an archived month, or correcting an archived estimate), oldest first,
 * waiting for `bills file` or `bills write-off`.
 */
export const billsSetAside: Command = async (_flags, c) => {
  const bills: ReturnType<typeof shown>[] = [];
  let after = '';
  do {
    const page = await c.billing.listSetAsideBills({ after, limit: PAGE_BILLS });
    bills.push(...page.bills.map(shown));
    after = page.next;
  } while (after);
  return bills;
};

/**
 * `bills file --request ID [--reason TEXT]`: charges a set-aside bill under the month running now
 * (its own may be archived), or corrects its request's estimate still in the ledger; once.
 */
export const billsFile: Command = async (flags, c) => {
  const requestId = required(flags, 'request');
  const filed = await c.billing.fileSetAsideBill({ requestId, reason: reasonFlag(flags) });
  return {
    requestId,
    month: filed.month,
    charged: microToLyd(filed.chargedMicroLyd),
    shortfall: microToLyd(filed.shortfallMicroLyd),
    corrected: filed.corrected,
  };
};

/** `bills write-off --request ID --reason TEXT`: the set-aside bill is never charged; the decision and its reason are kept. */
export const billsWriteOff: Command = async (flags, c) => {
  const requestId = required(flags, 'request');
  const reason = reasonFlag(flags);
  if (!reason) throw new CtlUsageError('--reason is required: a write-off says why');
  const { chargeMicroLyd } = await c.billing.writeOffSetAsideBill({ requestId, reason });
  return { requestId, writtenOff: true, charge: microToLyd(chargeMicroLyd) };
};
