import { AccountRecord, KeyOwnerRecord, KeyRecord, ModelRecord } from './identity-records';

/** Persistence of accounts, keys and models. */
export interface IdentityStore {
  createAccount(id: string, name: string): Promise<AccountRecord>;
  getAccount(id: string): Promise<AccountRecord | undefined>;
  insertKey(key: Omit<KeyRecord, 'createdAt' | 'lastUsedAt'>, keySha256: string): Promise<KeyRecord>;
  /** The owner of the active (not revoked) key with this hash: its account and the models it may use. */
  findKeyOwner(keySha256: string): Promise<KeyOwnerRecord | undefined>;
  listActiveKeys(accountId: string): Promise<KeyRecord[]>;
  /** Revokes a key; false when no active key has this id (of `accountId`, when it is not empty). */
  revokeKey(id: string, accountId: string): Promise<boolean>;
  /** Records the time of the last accepted request for each key id. */
  touchKeys(usedAt: Map<string, Date>): Promise<void>;
  /** Sets or clears the suspension; false for an unknown account. */
  setSuspension(accountId: string, suspension: { until: Date | null; reason: string | null } | null): Promise<boolean>;
  /** Marks the account as scheduled for deletion (once); false for an unknown account. */
  scheduleDeletion(accountId: string): Promise<boolean>;
  /** Adds a model; false when the id is taken. */
  insertModel(id: string, vision: boolean): Promise<ModelRecord | undefined>;
  /** One model of the catalogue, public or not; undefined for an unknown id. */
  getModel(id: string): Promise<ModelRecord | undefined>;
  /** Grants a model; 'no-model' for an unknown model id (an unknown account is the caller's to check). */
  grantModel(accountId: string, modelId: string): Promise<'granted' | 'no-model'>;
  /** Public models plus those granted to the account (public only when accountId is empty). */
  listModels(accountId: string): Promise<ModelRecord[]>;
}
