import {
  AuditDraft,
  AuditEntry,
  AuditKey,
  AuditValue,
  ChainCheck,
  ChainPoint,
  ChainWalker,
  entryHash,
  GENESIS_HASH,
  linkMac,
} from './audit-chain';
import { Database, Queryable } from '../db/database';
import { Migration } from '../db/migrations';

interface EntryRow {
  seq: string | number;
  at: Date;
  account_id: string | null;
  action: string;
  details: Record<string, AuditValue>;
  actor: string;
  reason: string;
  prev_hash: string;
  hash: string;
  mac: string | null;
}

const COLUMNS = 'seq, at, account_id, action, details, actor, reason, prev_hash, hash, mac';
/** Entries read per query while a chain is walked. */
const WALK_PAGE = 1000;

const toEntry = (r: EntryRow): AuditEntry => ({
  seq: Number(r.seq),
  at: r.at,
  accountId: r.account_id,
  action: r.action,
  details: r.details,
  actor: r.actor,
  reason: r.reason,
  prevHash: r.prev_hash,
  hash: r.hash,
  mac: r.mac,
});

/**
 * The migration that creates a schema's audit trail: the entries, and the chain's head (the last
 * seq and hash), one row that every append locks, so that appends are made one after the other
 * and form one chain, and that says where the chain ends (a deleted last entry falls short of it).
 * UPDATE, DELETE and TRUNCATE of the entries are revoked from the role that runs the migration
 * (not effective for a superuser, and the walk relies on none of it).
 */
export function auditTrailMigration(id: string, schema: string): Migration {
  return {
    id,
    sql: `
      CREATE TABLE ${schema}.audit_log (
        seq bigint PRIMARY KEY CHECK (seq > 0),
        at timestamptz NOT NULL,
        account_id text,
        action text NOT NULL,
        details jsonb NOT NULL,
        actor text NOT NULL,
        reason text NOT NULL,
        prev_hash text NOT NULL,
        hash text NOT NULL
      );
      CREATE INDEX audit_log_account ON ${schema}.audit_log (account_id, seq) WHERE account_id IS NOT NULL;
      CREATE TABLE ${schema}.audit_head (
        one boolean PRIMARY KEY DEFAULT true CHECK (one),
        seq bigint NOT NULL,
        hash text NOT NULL
      );
      INSERT INTO ${schema}.audit_head (seq, hash) VALUES (0, '${GENESIS_HASH}');
      REVOKE UPDATE, DELETE, TRUNCATE ON ${schema}.audit_log FROM CURRENT_USER;
    `,
  };
}

/**
 * The migration that keys a schema's audit trail: each link from now on keeps its mac,
 * HMAC-SHA256(AUDIT_KEY, hash). The key is the service's, from its environment: never in the
 * database, so that no one who can only write the database can make a link that verifies.
 * Entries written before it have none and pass only as the chain's prefix (ChainWalker).
 */
export function auditTrailKeyMigration(id: string, schema: string): Migration {
  return { id, sql: `ALTER TABLE ${schema}.audit_log ADD COLUMN mac text` };
}

/** One service's audit trail in its Postgres schema (auditTrailMigration): appended, listed by account, walked. */
export class PgAuditTrail {
  constructor(
    private readonly schema: string,
    private readonly key: AuditKey,
    private readonly now: () => Date = () => new Date(),
    /** AUDIT_UNKEYED_ENTRIES: how many first entries were written before links were keyed (ChainWalker). */
    private readonly unkeyedEntries = 0,
  ) {
    if (!/^[a-z_][a-z0-9_]*$/.test(schema)) throw new Error(`bad schema name ${schema}`);
  }

  /**
   * Appends an entry in `tx`, the transaction that makes the change it records: the head row is
   * locked until that transaction ends, so concurrent appends queue and each follows the last.
   * Call it last in the transaction, after the change's own rows are locked.
   */
  append(tx: Queryable, draft: AuditDraft): Promise<AuditEntry> {
    return this.appendAt(tx, async () => draft);
  }

  /**
   * As append, for an entry that needs its own seq first (rows that name their link): `draft` is
   * called with the seq the entry will have, once the head is locked.
   */
  async appendAt(tx: Queryable, draft: (seq: number) => Promise<AuditDraft>): Promise<AuditEntry> {
    const head = await tx.query<{ seq: string | number; hash: string }>(`SELECT seq, hash FROM ${this.schema}.audit_head FOR UPDATE`);
    const prevHash = head.rows[0].hash;
    const seq = Number(head.rows[0].seq) + 1;
    const unhashed = { ...(await draft(seq)), seq, at: this.now() };
    const hash = entryHash(prevHash, unhashed);
    const entry: AuditEntry = { ...unhashed, prevHash, hash, mac: linkMac(this.key, hash) };
    await tx.query(
      `INSERT INTO ${this.schema}.audit_log (${COLUMNS}) VALUES ($1, $2::timestamptz, $3, $4, $5::text::jsonb, $6, $7, $8, $9, $10)`,
      [
        entry.seq,
        entry.at.toISOString(),
        entry.accountId,
        entry.action,
        JSON.stringify(entry.details),
        entry.actor,
        entry.reason,
        entry.prevHash,
        entry.hash,
        entry.mac,
      ],
    );
    await tx.query(`UPDATE ${this.schema}.audit_head SET seq = $1, hash = $2`, [entry.seq, entry.hash]);
    return entry;
  }

  /** The account's newest `limit` entries, newest first. */
  async forAccount(db: Queryable, accountId: string, limit: number): Promise<AuditEntry[]> {
    const { rows } = await db.query<EntryRow>(
      `SELECT ${COLUMNS} FROM ${this.schema}.audit_log WHERE account_id = $1 ORDER BY seq DESC LIMIT $2`,
      [accountId, limit],
    );
    return rows.map(toEntry);
  }

  /** The chain's last link as the head names it (undefined for an empty chain, or a head whose entry is gone). */
  async lastLink(db: Queryable): Promise<ChainPoint | undefined> {
    const { rows } = await db.query<{ seq: string | number; hash: string; mac: string | null; at: Date }>(
      `SELECT l.seq, l.hash, l.mac, l.at FROM ${this.schema}.audit_log l JOIN ${this.schema}.audit_head h ON h.seq = l.seq`,
    );
    const r = rows[0];
    return r && { seq: Number(r.seq), hash: r.hash, mac: r.mac ?? '', at: r.at.toISOString() };
  }

  /**
   * Walks the whole chain in seq order (ChainWalker, every mac checked under the key, and against
   * `checkpoint` when given), in one snapshot, so that appends made meanwhile are not half seen.
   */
  verify(db: Database, checkpoint?: ChainPoint): Promise<ChainCheck> {
    return db.transaction(async (tx) => {
      await tx.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY');
      const head = (await tx.query<{ seq: string | number; hash: string }>(`SELECT seq, hash FROM ${this.schema}.audit_head`)).rows[0];
      const walker = new ChainWalker(
        { seq: Number(head?.seq ?? 0), hash: head?.hash ?? GENESIS_HASH },
        this.key,
        checkpoint,
        this.unkeyedEntries,
      );
      for (let after = 0; ;) {
        const { rows } = await tx.query<EntryRow>(
          `SELECT ${COLUMNS} FROM ${this.schema}.audit_log WHERE seq > $1 ORDER BY seq LIMIT ${WALK_PAGE}`,
          [after],
        );
        rows.map(toEntry).forEach((entry) => walker.take(entry));
        if (rows.length < WALK_PAGE) break;
        after = Number(rows[rows.length - 1].seq);
      }
      return walker.end();
    });
  }
}
