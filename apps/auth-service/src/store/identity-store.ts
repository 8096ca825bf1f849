import { AuditActor, AuditEntry, ChainCheck, ChainPoint } from '@gw/service-kit';
import { AccountRecord, KeyOwnerRecord, KeyRecord, ModelRecord } from './identity-records';

/**
 * Persistence of accounts, keys and models. Each change is recorded in the audit trail, by `by`,
 * in the same transaction (and only a change that changed something).
 */
export interface IdentityStore {
  createAccount(id: string, name: string): Promise<AccountRecord>;
  getAccount(id: string): Promise<AccountRecord | undefined>;
  insertKey(key: Omit<KeyRecord, 'createdAt' | 'lastUsedAt'>, keySha256: string, by: AuditActor): Promise<KeyRecord>;
  /** The owner of the active (not revoked) key with this hash: its account and the models it may use. */
  findKeyOwner(keySha256: string): Promise<KeyOwnerRecord | undefined>;
  listActiveKeys(accountId: string): Promise<KeyRecord[]>;
  /** Revokes a key; false when no active key has this id (of `accountId`, when it is not empty). */
  revokeKey(id: string, accountId: string, by: AuditActor): Promise<boolean>;
  /** Records the time of the last accepted request for each key id. */
  touchKeys(usedAt: Map<string, Date>): Promise<void>;
  /** Sets or clears the suspension; false for an unknown account. */
  setSuspension(accountId: string, suspension: { until: Date | null; reason: string | null } | null, by: AuditActor): Promise<boolean>;
  /**
   * Ends up to `limit` suspensions whose end has passed by the database's clock, in one
   * transaction: each account unsuspended, its holders told (`account-unsuspended`, details
   * endedAt and by: 'expiry') and the end recorded in the audit trail by `by`. A suspension a
   * concurrent transaction holds is left to it. Returns how many were ended.
   */
  endDueSuspensions(limit: number, by: AuditActor): Promise<number>;
  /** Marks the account as scheduled for deletion (once); false for an unknown account. */
  scheduleDeletion(accountId: string, by: AuditActor): Promise<boolean>;
  /** Adds a model; false when the id is taken. */
  insertModel(id: string, vision: boolean, by: AuditActor): Promise<ModelRecord | undefined>;
  /** One model of the catalogue, public or not; undefined for an unknown id. */
  getModel(id: string): Promise<ModelRecord | undefined>;
  /** Grants a model; 'no-model' for an unknown model id (an unknown account is the caller's to check). */
  grantModel(accountId: string, modelId: string, by: AuditActor): Promise<'granted' | 'no-model'>;
  /** Public models plus those granted to the account (public only when accountId is empty). */
  listModels(accountId: string): Promise<ModelRecord[]>;
  /** The account's newest `limit` entries of the audit trail, newest first. */
  auditEntries(accountId: string, limit: number): Promise<AuditEntry[]>;
  /** Walks the audit trail from its first entry, held to `checkpoint` when given. */
  verifyAuditTrail(checkpoint?: ChainPoint): Promise<ChainCheck>;
}
