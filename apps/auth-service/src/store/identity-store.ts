import { AccountRecord, KeyRecord, ModelRecord } from './identity-records';

/** Persistence of accounts, keys and models. */
export interface IdentityStore {
  createAccount(id: string, name: string): Promise<AccountRecord>;
  getAccount(id: string): Promise<AccountRecord | undefined>;
  insertKey(key: Omit<KeyRecord, 'createdAt' | 'lastUsedAt'>, keySha256: string): Promise<KeyRecord>;
  /** The active (not revoked) key with this hash. */
  findActiveKey(keySha256: string): Promise<KeyRecord | undefined>;
  listActiveKeys(accountId: string): Promise<KeyRecord[]>;
  /** Revokes a key; false when no active key has this id. */
  revokeKey(id: string): Promise<boolean>;
  /** Records the time of the last accepted request for each key id. */
  touchKeys(usedAt: Map<string, Date>): Promise<void>;
  /** Public models plus those granted to the account (public only when accountId is empty). */
  listModels(accountId: string): Promise<ModelRecord[]>;
}
