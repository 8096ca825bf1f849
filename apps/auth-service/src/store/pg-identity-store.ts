import { AuditActor, AuditEntry, ChainCheck, ChainPoint, Database, PgAuditTrail, PgHolderEvents } from '@gw/service-kit';
import { AccountRecord, KeyOwnerRecord, KeyRecord, ModelRecord } from './identity-records';
import { IdentityStore } from './identity-store';

interface AccountRow {
  id: string;
  name: string;
  suspended: boolean;
  suspended_until: Date | null;
  suspension_reason: string | null;
  deletion_scheduled_at: Date | null;
  granted: string[] | null;
}
interface KeyRow {
  id: string;
  account_id: string;
  prefix: string;
  name: string;
  created_at: Date;
  last_used_at: Date | null;
}
interface ModelRow {
  id: string;
  vision: boolean;
  public: boolean;
  /** A Date from a column, an ISO string from JSON. */
  created_at: Date | string;
}

const ACCOUNT_SELECT = `
  SELECT a.id, a.name, a.suspended, a.suspended_until, a.suspension_reason, a.deletion_scheduled_at,
         (SELECT array_agg(m.model_id ORDER BY m.model_id) FROM auth.account_models m WHERE m.account_id = a.id) AS granted
  FROM auth.accounts a`;
const KEY_COLUMNS = 'id, account_id, prefix, name, created_at, last_used_at';
// The models an account may use: the public ones and those granted to it.
const visibleModels = (accountId: string) =>
  `FROM auth.models m WHERE m.public OR EXISTS (SELECT 1 FROM auth.account_models g WHERE g.account_id = ${accountId} AND g.model_id = m.id)`;
const MODEL_ORDER = 'm.public DESC, m.id';
// Key, account and models in one round trip: this runs on every request.
const KEY_OWNER_SELECT = `
  SELECT k.id AS key_id, a.id, a.name, a.suspended, a.suspended_until, a.suspension_reason, a.deletion_scheduled_at,
         (SELECT array_agg(m.model_id ORDER BY m.model_id) FROM auth.account_models m WHERE m.account_id = a.id) AS granted,
         (SELECT json_agg(json_build_object('id', m.id, 'vision', m.vision, 'public', m.public, 'created_at', m.created_at) ORDER BY ${MODEL_ORDER})
          ${visibleModels('a.id')}) AS models
  FROM auth.api_keys k JOIN auth.accounts a ON a.id = k.account_id
  WHERE k.key_sha256 = $1 AND k.revoked_at IS NULL`;

// A suspension whose end has passed, by the database's clock (the partial index accounts_suspension_end).
const SUSPENSION_DUE = 'suspended AND suspended_until IS NOT NULL AND suspended_until <= now()';
// Rows another transaction holds are skipped: a replica changing or ending one now tells its holders, not this one.
const END_DUE_SUSPENSIONS = `
  WITH due AS (
    SELECT id, suspended_until FROM auth.accounts WHERE ${SUSPENSION_DUE}
    ORDER BY suspended_until, id LIMIT $1 FOR UPDATE SKIP LOCKED)
  UPDATE auth.accounts a SET suspended = false, suspended_until = NULL, suspension_reason = NULL
  FROM due WHERE a.id = due.id
  RETURNING a.id, due.suspended_until AS until`;

const toAccount = (r: AccountRow): AccountRecord => ({
  id: r.id,
  name: r.name,
  suspended: r.suspended,
  suspendedUntil: r.suspended_until,
  suspensionReason: r.suspension_reason,
  deletionScheduledAt: r.deletion_scheduled_at,
  grantedModels: r.granted ?? [],
});
const toKey = (r: KeyRow): KeyRecord => ({
  id: r.id,
  accountId: r.account_id,
  prefix: r.prefix,
  name: r.name,
  createdAt: r.created_at,
  lastUsedAt: r.last_used_at,
});
const toModel = (r: ModelRow): ModelRecord => ({ id: r.id, vision: r.vision, public: r.public, createdAt: new Date(r.created_at) });

/**
 * IdentityStore on Postgres (server or PGlite), schema `auth`. Every change is recorded in the
 * audit trail (auth.audit_log) in the transaction that makes it, and only when it changed something;
 * those the account's holders are mailed of (keys created and revoked, a suspension and its end)
 * also as holder events (auth.holder_events), in the same transaction.
 */
export class PgIdentityStore implements IdentityStore {
  constructor(
    private readonly db: Database,
    private readonly trail: PgAuditTrail,
    private readonly events: PgHolderEvents,
  ) {}

  async createAccount(id: string, name: string): Promise<AccountRecord> {
    await this.db.query('INSERT INTO auth.accounts (id, name) VALUES ($1, $2)', [id, name]);
    return (await this.getAccount(id)) as AccountRecord;
  }

  async getAccount(id: string): Promise<AccountRecord | undefined> {
    const { rows } = await this.db.query<AccountRow>(`${ACCOUNT_SELECT} WHERE a.id = $1`, [id]);
    return rows[0] && toAccount(rows[0]);
  }

  insertKey(key: Omit<KeyRecord, 'createdAt' | 'lastUsedAt'>, keySha256: string, by: AuditActor): Promise<KeyRecord> {
    return this.db.transaction(async (tx) => {
      const { rows } = await tx.query<KeyRow>(
        `INSERT INTO auth.api_keys (id, account_id, key_sha256, prefix, name) VALUES ($1, $2, $3, $4, $5) RETURNING ${KEY_COLUMNS}`,
        [key.id, key.accountId, keySha256, key.prefix, key.name],
      );
      // The key's id and prefix only: the key itself is never kept, nor its hash.
      const details = { keyId: key.id, prefix: key.prefix, name: key.name };
      await this.events.record(tx, { accountId: key.accountId, kind: 'key-created', details });
      await this.trail.append(tx, { accountId: key.accountId, action: 'key-created', details, ...by });
      return toKey(rows[0]);
    });
  }

  async findKeyOwner(keySha256: string): Promise<KeyOwnerRecord | undefined> {
    const { rows } = await this.db.query<AccountRow & { key_id: string; models: ModelRow[] | null }>(KEY_OWNER_SELECT, [keySha256]);
    const row = rows[0];
    return row && { keyId: row.key_id, account: toAccount(row), models: (row.models ?? []).map(toModel) };
  }

  async listActiveKeys(accountId: string): Promise<KeyRecord[]> {
    const { rows } = await this.db.query<KeyRow>(
      `SELECT ${KEY_COLUMNS} FROM auth.api_keys WHERE account_id = $1 AND revoked_at IS NULL ORDER BY created_at, id`,
      [accountId],
    );
    return rows.map(toKey);
  }

  revokeKey(id: string, accountId: string, by: AuditActor): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      const { rows } = await tx.query<{ account_id: string; prefix: string; name: string }>(
        "UPDATE auth.api_keys SET revoked_at = now() WHERE id = $1 AND revoked_at IS NULL AND ($2 = '' OR account_id = $2) RETURNING account_id, prefix, name",
        [id, accountId],
      );
      if (!rows[0]) return false;
      await this.events.record(tx, {
        accountId: rows[0].account_id,
        kind: 'key-revoked',
        details: { keyId: id, prefix: rows[0].prefix, name: rows[0].name },
      });
      await this.trail.append(tx, {
        accountId: rows[0].account_id,
        action: 'key-revoked',
        details: { keyId: id, prefix: rows[0].prefix },
        ...by,
      });
      return true;
    });
  }

  async touchKeys(usedAt: Map<string, Date>): Promise<void> {
    if (usedAt.size === 0) return;
    await this.db.query(
      `UPDATE auth.api_keys k SET last_used_at = GREATEST(COALESCE(k.last_used_at, u.t), u.t)
       FROM unnest($1::text[], $2::timestamptz[]) AS u(id, t) WHERE k.id = u.id`,
      [[...usedAt.keys()], [...usedAt.values()].map((d) => d.toISOString())],
    );
  }

  setSuspension(accountId: string, suspension: { until: Date | null; reason: string | null } | null, by: AuditActor): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      const until = suspension?.until?.toISOString() ?? null;
      // The row before the change, locked: lifting a suspension that is not there tells no holder.
      const { rows } = await tx.query<{ suspended: boolean }>('SELECT suspended FROM auth.accounts WHERE id = $1 FOR UPDATE', [accountId]);
      if (!rows[0]) return false;
      await tx.query('UPDATE auth.accounts SET suspended = $2, suspended_until = $3, suspension_reason = $4 WHERE id = $1', [
        accountId,
        suspension !== null,
        until,
        suspension?.reason ?? null,
      ]);
      if (suspension)
        await this.events.record(tx, { accountId, kind: 'account-suspended', details: { until, reason: suspension.reason ?? '' } });
      else if (rows[0].suspended) await this.events.record(tx, { accountId, kind: 'account-unsuspended', details: {} });
      await this.trail.append(
        tx,
        suspension
          ? { accountId, action: 'account-suspended', details: { until }, ...by }
          : { accountId, action: 'account-unsuspended', details: {}, ...by },
      );
      return true;
    });
  }

  async endDueSuspensions(limit: number, by: AuditActor): Promise<number> {
    // Nothing due, the usual case: one indexed read, and no transaction.
    const due = await this.db.query(`SELECT 1 FROM auth.accounts WHERE ${SUSPENSION_DUE} LIMIT 1`);
    if (due.rowCount === 0) return 0;
    return this.db.transaction(async (tx) => {
      const { rows } = await tx.query<{ id: string; until: Date }>(END_DUE_SUSPENSIONS, [limit]);
      const ended = rows
        .map((r) => ({ accountId: r.id, details: { endedAt: r.until.toISOString(), by: 'expiry' } }))
        .sort((a, b) => a.details.endedAt.localeCompare(b.details.endedAt) || a.accountId.localeCompare(b.accountId));
      await this.events.record(tx, ...ended.map((e) => ({ ...e, kind: 'account-unsuspended' as const })));
      for (const e of ended) await this.trail.append(tx, { ...e, action: 'account-unsuspended', ...by });
      return ended.length;
    });
  }

  scheduleDeletion(accountId: string, by: AuditActor): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      const { rows } = await tx.query<{ at: Date | null }>(
        'SELECT deletion_scheduled_at AS at FROM auth.accounts WHERE id = $1 FOR UPDATE',
        [accountId],
      );
      if (!rows[0]) return false;
      // Scheduled once: asked again, nothing changes and nothing is recorded.
      if (rows[0].at) return true;
      await tx.query('UPDATE auth.accounts SET deletion_scheduled_at = now() WHERE id = $1', [accountId]);
      await this.trail.append(tx, { accountId, action: 'deletion-scheduled', details: {}, ...by });
      return true;
    });
  }

  insertModel(id: string, vision: boolean, by: AuditActor): Promise<ModelRecord | undefined> {
    return this.db.transaction(async (tx) => {
      const { rows } = await tx.query<ModelRow>(
        'INSERT INTO auth.models (id, vision, public) VALUES ($1, $2, false) ON CONFLICT (id) DO NOTHING RETURNING id, vision, public, created_at',
        [id, vision],
      );
      if (!rows[0]) return undefined;
      await this.trail.append(tx, { accountId: null, action: 'model-added', details: { model: id, vision }, ...by });
      return toModel(rows[0]);
    });
  }

  async getModel(id: string): Promise<ModelRecord | undefined> {
    const { rows } = await this.db.query<ModelRow>('SELECT id, vision, public, created_at FROM auth.models WHERE id = $1', [id]);
    return rows[0] && toModel(rows[0]);
  }

  grantModel(accountId: string, modelId: string, by: AuditActor): Promise<'granted' | 'no-model'> {
    return this.db.transaction(async (tx) => {
      const { rowCount } = await tx.query('SELECT 1 FROM auth.models WHERE id = $1', [modelId]);
      if (rowCount === 0) return 'no-model';
      const granted = await tx.query('INSERT INTO auth.account_models (account_id, model_id) VALUES ($1, $2) ON CONFLICT DO NOTHING', [
        accountId,
        modelId,
      ]);
      if (granted.rowCount > 0) await this.trail.append(tx, { accountId, action: 'model-granted', details: { model: modelId }, ...by });
      return 'granted';
    });
  }

  async listModels(accountId: string): Promise<ModelRecord[]> {
    const { rows } = await this.db.query<ModelRow>(`SELECT id, vision, public, created_at ${visibleModels('$1')} ORDER BY ${MODEL_ORDER}`, [
      accountId,
    ]);
    return rows.map(toModel);
  }

  auditEntries(accountId: string, limit: number): Promise<AuditEntry[]> {
    return this.trail.forAccount(this.db, accountId, limit);
  }

  verifyAuditTrail(checkpoint?: ChainPoint): Promise<ChainCheck> {
    return this.trail.verify(this.db, checkpoint);
  }
}
