/**
 * Where a reader of holder events stands: the (transaction id, event id) of the last event taken.
 * Events are read in that order, and only from transactions older than every one still running,
 * so none is found later before the cursor (PgHolderEvents.after).
 */
export interface HolderEventCursor {
  /** The transaction id (xid8), as decimal text: it may pass 2^53. */
  txid: string;
  id: number;
}

/** The cursor before every event. */
export const START_CURSOR: HolderEventCursor = { txid: '0', id: 0 };

const FORM = /^(\d{1,20}):(\d{1,16})$/;
/** The largest xid8. */
const MAX_XID8 = 2n ** 64n - 1n;

/** A cursor as a stream carries it: `txid:id`. */
export const encodeCursor = (c: HolderEventCursor): string => `${c.txid}:${c.id}`;

/** A cursor from its text ('' is the start); undefined when it is not one. */
export function decodeCursor(text: string): HolderEventCursor | undefined {
  if (text === '') return START_CURSOR;
  const m = FORM.exec(text);
  if (!m) return undefined;
  const txid = BigInt(m[1]);
  const id = Number(m[2]);
  if (txid > MAX_XID8 || !Number.isSafeInteger(id)) return undefined;
  return { txid: txid.toString(), id };
}
