import { AuditActor, optionalId, requireCount, requireId } from '@gw/service-kit';
import { DomainError } from '@gw/errors';
import { AppliedBill } from '../store/credit-line-records';
import { SetAsideDecision, SetAsideRecord, SetAsideStore } from '../store/set-aside-store';

/** ListSetAsideBills' largest page. */
export const MAX_SET_ASIDE_PAGE = 1000;

/** The longest reason an operator may give for a decision. */
const MAX_REASON_LENGTH = 500;

const encodeCursor = (record: SetAsideRecord): string => `${record.cursor.setAsideAt}|${record.cursor.requestId}`;

function decodeCursor(text: string): { setAsideAt: string; requestId: string } | undefined {
  if (!text) return undefined;
  const bar = text.indexOf('|');
  if (bar < 0) throw new DomainError('invalid-argument', 'after is not a cursor this service gave');
  return { setAsideAt: text.slice(0, bar), requestId: text.slice(bar + 1) };
}

function refused(requestId: string, decision: Exclude<SetAsideDecision, { kind: 'filed' } | { kind: 'written-off' }>): never {
  switch (decision.kind) {
    case 'not-found':
      throw new DomainError('not-found', `no bill of request ${requestId} is set aside`);
    case 'decided':
      throw new DomainError('failed-precondition', `the set-aside bill of request ${requestId} was ${decision.decision} before`);
    case 'archived-estimate':
      throw new DomainError(
        'failed-precondition',
        `request ${requestId} was charged an estimate that is archived now: filing its real usage would charge it twice; write it off ` +
          '(and change the balance by the difference with balance add, if it is owed)',
      );
  }
}

/**
 * The bills set aside instead of filed (billing.v1 ListSetAsideBills, FileSetAsideBill,
 * WriteOffSetAsideBill): the operator sees each and decides it once; the decision, who made it
 * and why are kept with the bill and in the audit trail.
 */
export class SetAsideBills {
  constructor(private readonly store: SetAsideStore) {}

  async list(after: string, limit: number): Promise<{ bills: SetAsideRecord[]; next: string }> {
    requireCount('limit', limit, MAX_SET_ASIDE_PAGE, 1);
    const bills = await this.store.listOpen(decodeCursor(after), limit);
    return { bills, next: bills.length === limit ? encodeCursor(bills[bills.length - 1]) : '' };
  }

  /** Files the bill under the month running now (or corrects its request's estimate in the ledger). */
  async file(requestId: string, by: AuditActor): Promise<{ month: string; applied: AppliedBill }> {
    requireId('request_id', requestId);
    optionalId('reason', by.reason, MAX_REASON_LENGTH);
    const decision = await this.store.file(requestId, by);
    if (decision.kind === 'filed') return decision;
    if (decision.kind === 'written-off') throw new Error('filing answered a write-off');
    return refused(requestId, decision);
  }

  /** Writes the bill off: never charged. A reason is required. */
  async writeOff(requestId: string, by: AuditActor): Promise<number> {
    requireId('request_id', requestId);
    requireId('reason', by.reason, MAX_REASON_LENGTH);
    const decision = await this.store.writeOff(requestId, by);
    if (decision.kind === 'written-off') return decision.chargeMicro;
    if (decision.kind === 'filed') throw new Error('a write-off answered filed');
    return refused(requestId, decision);
  }
}
