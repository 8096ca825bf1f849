/** An account row. */
export interface AccountRecord {
  id: string;
  name: string;
  suspended: boolean;
  suspendedUntil: Date | null;
  suspensionReason: string | null;
  deletionScheduledAt: Date | null;
  grantedModels: string[];
}

/** An API key row: never the key itself. */
export interface KeyRecord {
  id: string;
  accountId: string;
  prefix: string;
  name: string;
  createdAt: Date;
  lastUsedAt: Date | null;
}

/** A model row. */
export interface ModelRecord {
  id: string;
  vision: boolean;
  public: boolean;
  createdAt: Date;
}

/** Who an active key belongs to, and the models its account may use. */
export interface KeyOwnerRecord {
  keyId: string;
  account: AccountRecord;
  models: ModelRecord[];
}
