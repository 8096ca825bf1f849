import { createHash, KeyObject } from 'node:crypto';
import { DomainError } from '@gw/errors';
import { requireId } from '@gw/service-kit';
import { MONTH, monthBounds, publicKeyPem, signatureLine, statementKeyId, StatementStatus } from '@gw/statement';
import { SendPart, StatementStore } from '../store/statement-store';
import { WorkSlots } from './work-slots';

/**
 * How many statements a replica makes from the books at once: each holds a database connection
 * while its caller reads it (a month still open) or while it is kept (the first time a final one
 * is asked for). Kept statements are read without one.
 */
export const STATEMENTS_MADE_AT_ONCE = 2;

const monthOf = (ms: number) => new Date(ms).toISOString().slice(0, 7);

/** A month of an account's statements, and whether it can still change. */
export interface StatementMonth {
  month: string;
  status: StatementStatus;
}

/**
 * Holders' monthly statements, signed with the service's Ed25519 key (docs/statements.md). A month
 * is final once the late-bill window after it has passed (no bill of it can be filed any more):
 * its statement is kept the first time it is asked for, and given as kept ever after, byte for
 * byte; a month before that is made from the books each time, marked provisional.
 */
export class MonthlyStatements {
  private readonly slots = new WorkSlots(STATEMENTS_MADE_AT_ONCE);
  readonly keyId: string;
  readonly publicKeyPem: string;

  /**
   * `begin`: the first month (YYYY-MM) with a statement, when months were archived before
   * statements were kept (their rows are gone); undefined when every month has one.
   */
  constructor(
    private readonly store: StatementStore,
    private readonly signingKey: KeyObject,
    private readonly lateWindowMs: number,
    private readonly begin: string | undefined,
    private readonly now: () => number = Date.now,
  ) {
    this.keyId = statementKeyId(signingKey);
    this.publicKeyPem = publicKeyPem(signingKey);
  }

  /** Whether YYYY-MM is final or provisional; refused when it is not a month, has not begun, or was archived before statements were kept. */
  statusOf(month: string): StatementStatus {
    if (!MONTH.test(month)) throw new DomainError('invalid-argument', 'month must be YYYY-MM');
    const { start, end } = monthBounds(month);
    const now = this.now();
    if (Date.parse(start) > now) throw new DomainError('invalid-argument', `${month} has not begun`);
    if (this.begin && month < this.begin)
      throw new DomainError(
        'failed-precondition',
        `${month} was archived before statements were kept: its rows are in that archive's file; statements begin with ${this.begin}`,
      );
    return Date.parse(end) + this.lateWindowMs <= now ? 'final' : 'provisional';
  }

  /** Sends the signed statement of the account's month: its lines in parts, the signature row last. */
  async send(accountId: string, month: string, send: SendPart): Promise<void> {
    requireId('account_id', accountId);
    const status = this.statusOf(month);
    const hash = createHash('sha256');
    const hashed: SendPart = (text) => {
      hash.update(text);
      return send(text);
    };
    if (status === 'provisional') await this.slots.run(() => this.store.sendMade(accountId, month, status, hashed));
    else if (!(await this.store.sendKept(accountId, month, hashed))) {
      await this.slots.run(() => this.store.keep(accountId, month));
      if (!(await this.store.sendKept(accountId, month, hashed))) throw new Error(`the statement of ${accountId} of ${month} was not kept`);
    }
    await send(`${signatureLine({ accountId, month }, hash.digest(), this.signingKey)}\n`);
  }

  /** The months of the account's statements, newest first: from the first in which its balance moved (else this one, and none before statements begin) to this one. */
  async months(accountId: string): Promise<StatementMonth[]> {
    requireId('account_id', accountId);
    const last = monthOf(this.now());
    const moved = (await this.store.firstMonth(accountId)) ?? last;
    const from = this.begin && this.begin > moved ? this.begin : moved;
    const first = from < last ? from : last;
    const months: StatementMonth[] = [];
    for (let month = last; month >= first; month = monthOf(Date.parse(monthBounds(month).start) - 1))
      months.push({ month, status: this.statusOf(month) });
    return months;
  }
}
