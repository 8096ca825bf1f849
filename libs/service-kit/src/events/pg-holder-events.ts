import { Queryable } from '../db/database';
import { Migration } from '../db/migrations';
import { HolderEventCursor } from './holder-event-cursor';
import { HolderEventKindName } from './holder-event-kinds';

/** A value of an event's details: figures and names, never key material. */
export type HolderEventValue = string | number | boolean | null;

/** An event to record: the account, what happened, the figures. */
export interface HolderEventDraft {
  accountId: string;
  kind: HolderEventKindName;
  details: Record<string, HolderEventValue>;
}

/** An event as kept. */
export interface HolderEvent extends HolderEventDraft {
  id: number;
  at: Date;
  /** Where a reader stands once it has taken this event. */
  cursor: HolderEventCursor;
}

/** A page of events after a cursor. */
export interface HolderEventPage {
  /** Events every reader may take, in order. */
  events: HolderEvent[];
  /**
   * Events after these were committed but are held back: a transaction older than theirs still
   * runs, and may yet commit an event that comes before them. Read again shortly.
   */
  held: boolean;
}

interface EventRow {
  id: string | number;
  txid: string;
  at: Date;
  account_id: string;
  kind: HolderEventKindName;
  details: Record<string, HolderEventValue>;
  settled: boolean;
}

/**
 * The migration that creates a schema's holder events: each row keeps the id of the transaction
 * that wrote it (xid8, assigned at the first write, so a row inserted late in a long transaction
 * carries its transaction's early id), read in (txid, id) order.
 */
export function holderEventsMigration(id: string, schema: string): Migration {
  checkSchema(schema);
  return {
    id,
    sql: `
      CREATE TABLE ${schema}.holder_events (
        id bigserial PRIMARY KEY,
        txid xid8 NOT NULL DEFAULT pg_current_xact_id(),
        at timestamptz NOT NULL DEFAULT now(),
        account_id text NOT NULL,
        kind text NOT NULL,
        details jsonb NOT NULL
      );
      CREATE INDEX holder_events_order ON ${schema}.holder_events (txid, id);
    `,
  };
}

function checkSchema(schema: string): void {
  if (!/^[a-z_][a-z0-9_]*$/.test(schema)) throw new Error(`bad schema name ${schema}`);
}

/** The NOTIFY channel a schema's holder events are announced on (when their transaction commits). */
export const holderEventsChannel = (schema: string): string => `${schema}_holder_events`;

/** One service's holder events in its Postgres schema (holderEventsMigration): recorded, and read after a cursor. */
export class PgHolderEvents {
  private readonly insert: string;
  private readonly page: string;

  constructor(readonly schema: string) {
    checkSchema(schema);
    // One statement: the rows, and the announcement Postgres sends when (if) the transaction commits.
    this.insert = `
      WITH recorded AS (
        INSERT INTO ${schema}.holder_events (account_id, kind, details)
        SELECT u.account_id, u.kind, u.details::jsonb FROM unnest($1::text[], $2::text[], $3::text[]) WITH ORDINALITY AS u(account_id, kind, details, n)
        ORDER BY u.n
        RETURNING id)
      SELECT pg_notify('${holderEventsChannel(schema)}', '') FROM recorded LIMIT 1`;
    // Settled: written by a transaction older than every transaction running now (the snapshot's
    // xmin). It has ended, and so has every transaction before it: no event can still come
    // before this one, and a reader that resumes after it misses none.
    this.page = `
      SELECT id, txid::text AS txid, at, account_id, kind, details, txid < pg_snapshot_xmin(pg_current_snapshot()) AS settled
      FROM ${schema}.holder_events WHERE (txid, id) > ($1::text::xid8, $2::bigint) ORDER BY txid, id LIMIT $3`;
  }

  /**
   * Records events in `tx`, the transaction that makes what they tell of: they are kept (and
   * announced) only if it commits.
   */
  async record(tx: Queryable, ...events: HolderEventDraft[]): Promise<void> {
    if (events.length === 0) return;
    await tx.query(this.insert, [events.map((e) => e.accountId), events.map((e) => e.kind), events.map((e) => JSON.stringify(e.details))]);
  }

  /** Up to `limit` settled events after `cursor`, in order. */
  async after(db: Queryable, cursor: HolderEventCursor, limit: number): Promise<HolderEventPage> {
    const { rows } = await db.query<EventRow>(this.page, [cursor.txid, cursor.id, limit]);
    const settled = rows.findIndex((r) => !r.settled);
    const taken = settled === -1 ? rows : rows.slice(0, settled);
    return {
      events: taken.map((r) => ({
        id: Number(r.id),
        at: r.at,
        accountId: r.account_id,
        kind: r.kind,
        details: r.details,
        cursor: { txid: r.txid, id: Number(r.id) },
      })),
      held: settled !== -1,
    };
  }
}
