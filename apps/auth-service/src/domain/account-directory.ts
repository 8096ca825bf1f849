import { randomBytes } from 'node:crypto';
import { AuditActor, AuditEntry, ChainCheck, ChainPoint, optionalId, requireCount, requireId } from '@gw/service-kit';
import { AccountRecord, KeyOwnerRecord, KeyRecord, ModelRecord } from '../store/identity-records';
import { IdentityStore } from '../store/identity-store';
import { accountName, keyName } from './display-name';
import { generateApiKey } from './api-key';
import { IdentityChange } from './identity-change-hub';
import { LastUsedRecorder } from './last-used-recorder';
import { requireKeyDigest, requireModelId, suspensionEnd, suspensionReason } from './request-fields';
import { DomainError } from '@gw/errors';

/** The most audit entries one ListAuditEntries answers. */
const MAX_AUDIT_PAGE = 200;

const newId = (kind: string) => `${kind}_${randomBytes(12).toString('hex')}`;

/** True while a suspension applies: set, and with no end or an end still ahead. */
export function isSuspendedNow(account: AccountRecord, now: Date): boolean {
  return account.suspended && (account.suspendedUntil === null || account.suspendedUntil > now);
}

/** Where a change that makes cached authentications stale is published (IdentityFeed). */
export interface ChangePublisher {
  publish(change: IdentityChange): Promise<void>;
}

/**
 * The rules of accounts and keys (docs/api.md: keys, authentication). A change that makes an edge's
 * cached authentication stale returns only once every edge has applied it (ChangePublisher).
 * Every id, name and text is checked against its bound (INVALID_ARGUMENT) before the store is asked.
 * Each change is made `by` someone (AuditActor), whom the store's audit trail records with it.
 */
export class AccountDirectory {
  constructor(
    private readonly store: IdentityStore,
    private readonly lastUsed: LastUsedRecorder,
    private readonly changes: ChangePublisher,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** Creates an account; the name follows accountName's rule (at most 64 characters, no control characters). */
  createAccount(name: string): Promise<AccountRecord> {
    return this.store.createAccount(newId('acct'), accountName(name));
  }

  async getAccount(accountId: string): Promise<AccountRecord> {
    const account = await this.store.getAccount(requireId('account_id', accountId));
    if (!account) throw new DomainError('not-found', `account ${accountId} not found`);
    return account;
  }

  private async mustExist(changed: Promise<boolean>, accountId: string): Promise<void> {
    if (!(await changed)) throw new DomainError('not-found', `account ${accountId} not found`);
  }

  /** Creates a key; refused for an account that is suspended or scheduled for deletion. */
  async createKey(accountId: string, name: string, by: AuditActor): Promise<{ record: KeyRecord; value: string }> {
    const account = await this.getAccount(accountId);
    if (isSuspendedNow(account, this.now())) throw new DomainError('failed-precondition', 'account is suspended');
    if (account.deletionScheduledAt) throw new DomainError('failed-precondition', 'account is scheduled for deletion');
    const requested = keyName(name);
    const key = generateApiKey();
    const id = newId('key');
    const record = await this.store.insertKey(
      { id, accountId, prefix: key.prefix, name: requested || `Key ${key.prefix}` },
      key.sha256,
      by,
    );
    return { record, value: key.value };
  }

  async listKeys(accountId: string): Promise<KeyRecord[]> {
    await this.getAccount(accountId);
    return this.store.listActiveKeys(accountId);
  }

  /** Revokes a key; with `accountId`, only a key of that account (another's is as unknown: NOT_FOUND). */
  async revokeKey(keyId: string, accountId: string, by: AuditActor): Promise<void> {
    if (!(await this.store.revokeKey(requireId('key_id', keyId), optionalId('account_id', accountId), by)))
      throw new DomainError('not-found', `key ${keyId} not found`);
    await this.changes.publish({ keyId });
  }

  /** Records uses the edge served from its cache ("last used" is written in batches). */
  recordKeyUses(uses: { keyId: string; at: Date }[]): void {
    for (const { keyId, at } of uses) this.lastUsed.record(keyId, at);
  }

  /** The owner of an active key, or undefined for an unknown or revoked one. Records the use. */
  async authenticate(keySha256: string): Promise<KeyOwnerRecord | undefined> {
    const owner = await this.store.findKeyOwner(requireKeyDigest(keySha256));
    if (owner && !isSuspendedNow(owner.account, this.now())) this.lastUsed.record(owner.keyId, this.now());
    return owner;
  }

  /**
   * Suspends an account until `until` (ISO-8601, empty for no end), with an optional reason
   * (suspensionEnd, suspensionReason), asked `by` an actor: the trail's reason is the reason shown.
   */
  async suspend(accountId: string, until: string, reason: string, by: string): Promise<AccountRecord> {
    requireId('account_id', accountId);
    const end = suspensionEnd(until);
    const shown = suspensionReason(reason);
    await this.mustExist(
      this.store.setSuspension(accountId, { until: end, reason: shown || null }, { actor: by, reason: shown }),
      accountId,
    );
    await this.changes.publish({ accountId });
    return this.getAccount(accountId);
  }

  async unsuspend(accountId: string, by: AuditActor): Promise<AccountRecord> {
    await this.mustExist(this.store.setSuspension(requireId('account_id', accountId), null, by), accountId);
    await this.changes.publish({ accountId });
    return this.getAccount(accountId);
  }

  async scheduleDeletion(accountId: string, by: AuditActor): Promise<AccountRecord> {
    await this.mustExist(this.store.scheduleDeletion(requireId('account_id', accountId), by), accountId);
    await this.changes.publish({ accountId });
    return this.getAccount(accountId);
  }

  async grantModel(accountId: string, modelId: string, by: AuditActor): Promise<AccountRecord> {
    requireModelId('model_id', modelId);
    await this.getAccount(accountId);
    if ((await this.store.grantModel(accountId, modelId, by)) === 'no-model')
      throw new DomainError('not-found', `model ${modelId} not found`);
    await this.changes.publish({ accountId });
    return this.getAccount(accountId);
  }

  /** Adds a model only granted accounts may use. */
  async addModel(id: string, vision: boolean, by: AuditActor): Promise<ModelRecord> {
    if (!/^[\x21-\x7e]{1,128}$/.test(id)) throw new DomainError('invalid-argument', 'a model id is 1 to 128 visible ASCII characters');
    const model = await this.store.insertModel(id, vision, by);
    if (!model) throw new DomainError('already-exists', `model ${id} already exists`);
    return model;
  }

  /** One model of the catalogue, public or not; NOT_FOUND for an unknown id. */
  async getModel(id: string): Promise<ModelRecord> {
    const model = await this.store.getModel(requireModelId('id', id));
    if (!model) throw new DomainError('not-found', `model ${id} not found`);
    return model;
  }

  /** The models an account may use; with no account (''), the public ones. */
  listModels(accountId: string): Promise<ModelRecord[]> {
    return this.store.listModels(optionalId('account_id', accountId));
  }

  /** The account's newest entries of the audit trail (at most MAX_AUDIT_PAGE), newest first. */
  auditEntries(accountId: string, limit: number): Promise<AuditEntry[]> {
    return this.store.auditEntries(requireId('account_id', accountId), requireCount('limit', limit, MAX_AUDIT_PAGE, 1));
  }

  /** Walks the audit trail from its first entry: the first entry edited, missing or out of place is named. */
  verifyAuditTrail(checkpoint?: ChainPoint): Promise<ChainCheck> {
    return this.store.verifyAuditTrail(checkpoint);
  }
}
