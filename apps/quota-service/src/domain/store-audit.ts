import { AuditReport, MoneyAudit } from '@gw/service-kit';
import { FreeTierStore } from '../store/free-tier/free-tier-store';
import { AccountFacts, OverdueLease, StoreAuditSource } from '../store/audit/store-audit-source';
import { LentLine } from './line-returner';

/** What the audit of quota-service's store can find wrong (`ctl audit`). */
export type StoreViolationKind =
  | 'hold-without-lease'
  | 'held-not-holds'
  | 'lines-disagree'
  | 'held-beyond-line'
  | 'lease-overdue'
  | 'place-overdue'
  | 'free-pool-below-zero';

export const STORE_VIOLATION_KINDS: readonly StoreViolationKind[] = [
  'hold-without-lease',
  'held-not-holds',
  'lines-disagree',
  'held-beyond-line',
  'lease-overdue',
  'place-overdue',
  'free-pool-below-zero',
];

/** One thing in the store that breaks a rule; `requestId` is the billing id it is about, or ''. */
export interface StoreViolation {
  kind: StoreViolationKind;
  accountId: string;
  requestId: string;
  detail: string;
}

/** A line the store lost and is rebuilding: not a violation (see `isRepairing`). */
export interface RepairingLine {
  accountId: string;
  detail: string;
}

/**
 * The store lost the account's line (no granted total) and has charged, returned or held in it
 * since: the edges' renewals re-send finished requests' bills (charged again) and running
 * requests' holds (held again) into a line whose totals only billing-service has now. The store
 * adopts billing-service's totals once the account's bills are applied (ADOPT_LINE: before, the
 * larger of the two charged totals could drop a re-sent charge), so until then its totals are
 * partial by design: they are not compared with billing-service's, and the holds are judged
 * against what billing-service lent instead.
 */
export const isRepairing = ({ lineKnown, credit }: AccountFacts): boolean =>
  !lineKnown && (credit.charged > 0 || credit.returned > 0 || credit.held > 0);

/**
 * The rules one account's state must keep:
 * - every hold belongs to a running request, which has a lease (Admit starts both, Finish ends both);
 * - `held` is the sum of the holds;
 * - the holds fit in the line (granted - charged - returned), once the store knows the line
 *   (a line being repaired: lineViolations);
 * - a place without a lease (the chat product's AcquirePlace) is given back within `placeMaxAgeMs`.
 */
export function accountViolations(facts: AccountFacts, rules: { nowMs: number; placeMaxAgeMs: number }): StoreViolation[] {
  const { accountId, credit } = facts;
  const found: StoreViolation[] = [];
  const add = (kind: StoreViolationKind, requestId: string, detail: string) => found.push({ kind, accountId, requestId, detail });
  let holdsSum = 0;
  for (const [requestId, micro] of facts.holds) {
    holdsSum += micro;
    if (!facts.leased.has(requestId)) add('hold-without-lease', requestId, `holds ${micro} micro-LYD with no lease`);
  }
  if (holdsSum !== credit.held) add('held-not-holds', '', `held ${credit.held} micro-LYD, its holds ${holdsSum}`);
  const line = credit.granted - credit.charged - credit.returned;
  if (credit.held > line && !isRepairing(facts)) add('held-beyond-line', '', `held ${credit.held} micro-LYD in a line of ${line}`);
  for (const [requestId, grantedMs] of facts.places) {
    const ageMs = rules.nowMs - grantedMs;
    if (!facts.leased.has(requestId) && ageMs > rules.placeMaxAgeMs)
      add('place-overdue', requestId, `a place held ${Math.round(ageMs / 1000)} s without a lease`);
  }
  return found;
}

/**
 * The line's totals here agree with billing-service's: lending reaches here after billing-service
 * has lent, so `granted` is never more than billing-service's read after (`after`); charges and
 * returns reach billing-service after they were made here, so `charged` and `returned` are never
 * less than billing-service's read before (`before`). Each total only grows, on both sides, so
 * no request running meanwhile can make them disagree; a store that lost writes repairs its
 * totals from billing-service's answers (the larger value), so it agrees again once repaired.
 * While the store repairs a lost line (isRepairing) its totals are partial: the holds must then fit
 * in what billing-service lent and has not seen charged or returned (granted after, charged and
 * returned before: the most the line can have held at the store's look).
 */
export function lineViolations(facts: AccountFacts, before: LentLine | undefined, after: LentLine | undefined): StoreViolation[] {
  const { accountId, credit } = facts;
  if (isRepairing(facts)) {
    const lent = (after?.granted ?? 0) - (before?.charged ?? 0) - (before?.returned ?? 0);
    if (credit.held <= lent) return [];
    return [{ kind: 'held-beyond-line', accountId, requestId: '', detail: `held ${credit.held} micro-LYD, billing-service lent ${lent}` }];
  }
  const wrong: string[] = [];
  if (credit.granted > (after?.granted ?? 0))
    wrong.push(`granted ${credit.granted} micro-LYD here, ${after?.granted ?? 0} at billing-service`);
  if (credit.charged < (before?.charged ?? 0))
    wrong.push(`charged ${credit.charged} micro-LYD here, ${before?.charged} at billing-service`);
  if (credit.returned < (before?.returned ?? 0))
    wrong.push(`returned ${credit.returned} micro-LYD here, ${before?.returned} at billing-service`);
  return wrong.length === 0 ? [] : [{ kind: 'lines-disagree', accountId, requestId: '', detail: wrong.join('; ') }];
}

/** What an operator reads of a line being repaired (isRepairing). */
export function repairingLine(facts: AccountFacts, after: LentLine | undefined): RepairingLine {
  const { credit, billsWaiting } = facts;
  const waiting = billsWaiting > 0 ? `bills waiting for billing-service: ${billsWaiting}` : 'its bills are applied';
  return {
    accountId: facts.accountId,
    detail:
      `the store lost this line: charged ${credit.charged}, returned ${credit.returned} and held ${credit.held} micro-LYD here since, ` +
      `charged ${after?.charged ?? 0} at billing-service; ${waiting}, then billing-service's totals are adopted`,
  };
}

/** A lease the reaper left: it lapsed before the audit's grace and is still there. */
export const leaseViolation = (lease: OverdueLease, nowMs: number): StoreViolation => ({
  kind: 'lease-overdue',
  accountId: lease.accountId,
  requestId: lease.requestId,
  detail: `lapsed ${Math.round((nowMs - lease.lapsedAtMs) / 1000)} s ago and not finished`,
});

/** The free pool today: never below zero, never past its size. */
export function freePoolViolations(usedTokens: number, poolTokens: number): StoreViolation[] {
  if (usedTokens >= 0 && usedTokens <= poolTokens) return [];
  return [{ kind: 'free-pool-below-zero', accountId: '', requestId: '', detail: `used ${usedTokens} tokens of a pool of ${poolTokens}` }];
}

/** A lease lapsed this long ago and still there is one the reaper failed to finish. */
export const LEASE_OVERDUE_MS = 60_000;
const ACCOUNT_BATCH = 200;

/** What the audit of quota-service's store reads. */
export interface StoreAuditDeps {
  source: StoreAuditSource;
  freeTier: Pick<FreeTierStore, 'snapshot'>;
  /** billing-service's lines of these accounts, whatever their line (an account without a balance left out). */
  linesOf(accountIds: readonly string[]): Promise<LentLine[]>;
  /** PLACE_RECOVERY_SECONDS: the longest a place without a lease may be held. */
  placeMaxAgeMs: number;
}

const byAccount = (lines: LentLine[]) => new Map(lines.map((l) => [l.accountId, l]));

/** What the audit of the store found wrong, and the lines it found being repaired (no violation). */
export interface StoreAuditReport extends AuditReport<StoreViolation> {
  repairingLines: RepairingLine[];
}

/**
 * Audits the store: every account's holds, line and places, its line against billing-service's
 * (read before and after it, a batch of accounts at a time), the leases the reaper left, and
 * the free pool; the lines being repaired are listed apart.
 */
export async function auditStore(deps: StoreAuditDeps, max: number): Promise<StoreAuditReport> {
  const { settings, nowMs } = await deps.freeTier.snapshot();
  const found: StoreViolation[] = [];
  const repairing: RepairingLine[] = [];
  let accountsChecked = 0;
  for await (const ids of deps.source.accountIds(ACCOUNT_BATCH)) {
    const before = byAccount(await deps.linesOf(ids));
    const facts = await deps.source.facts(ids);
    const after = byAccount(await deps.linesOf(ids));
    accountsChecked += facts.length;
    for (const account of facts) {
      found.push(...accountViolations(account, { nowMs, placeMaxAgeMs: deps.placeMaxAgeMs }));
      found.push(...lineViolations(account, before.get(account.accountId), after.get(account.accountId)));
      if (isRepairing(account)) repairing.push(repairingLine(account, after.get(account.accountId)));
    }
  }
  for (const lease of await deps.source.overdueLeases(nowMs - LEASE_OVERDUE_MS, max)) found.push(leaseViolation(lease, nowMs));
  found.push(...freePoolViolations(await deps.source.freePoolUsed(nowMs), settings.poolTokens));
  return { violations: found.slice(0, max), accountsChecked, repairingLines: repairing.slice(0, max) };
}

/** The most violations one audit reports. */
export const MAX_VIOLATIONS = 1000;

/** The audit of the store: `ctl audit` runs it, and every replica every MONEY_AUDIT_INTERVAL_MS (the money_audit_violations gauge). */
export const storeAuditOf = (deps: StoreAuditDeps): MoneyAudit<StoreViolation, StoreAuditReport> =>
  new MoneyAudit(STORE_VIOLATION_KINDS, () => auditStore(deps, MAX_VIOLATIONS));
