import { AuditActor, AuditEntry, ChainCheck, ChainPoint, Database, PgAuditTrail } from '@gw/service-kit';

/** A free-tier change quota-service made (it keeps the settings in Redis, which has no audit trail). */
export interface FreeTierChange {
  dailyTokens: number;
  poolTokens: number;
  paused: boolean;
  enabled: boolean;
  /** The settings the change set, by their proto names. */
  changed: string[];
}

/**
 * billing-service's audit trail (billing.audit_log) beyond the changes PgBillingStore records in
 * their own transactions (balance changes, prices): the free-tier changes quota-service reports,
 * an account's entries, and the walk of the chain.
 */
export class PgBillingAudit {
  constructor(
    private readonly db: Database,
    private readonly trail: PgAuditTrail,
  ) {}

  /** Records a free-tier change made `by` the operator through quota-service; its seq. */
  async recordFreeTierChange(change: FreeTierChange, by: AuditActor): Promise<number> {
    const details = { ...change, changed: change.changed.join(','), via: 'quota-service' };
    return (await this.db.transaction((tx) => this.trail.append(tx, { accountId: null, action: 'free-tier-set', details, ...by }))).seq;
  }

  entries(accountId: string, limit: number): Promise<AuditEntry[]> {
    return this.trail.forAccount(this.db, accountId, limit);
  }

  verify(checkpoint?: ChainPoint): Promise<ChainCheck> {
    return this.trail.verify(this.db, checkpoint);
  }
}
