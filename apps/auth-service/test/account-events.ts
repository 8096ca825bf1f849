import { HolderEventKindName, HolderEventValue, PgHolderEvents, Queryable, START_CURSOR } from '@gw/service-kit';
import { eventually } from '@gw/testing';

const events = new PgHolderEvents('auth');

/**
 * The kinds and details of an account's holder events, in order, once none is held back (behind a
 * transaction of any database of the server still running).
 */
export async function accountEvents(
  db: Queryable,
  accountId: string,
): Promise<{ kind: HolderEventKindName; details: Record<string, HolderEventValue> }[]> {
  const page = await eventually(
    () => events.after(db, START_CURSOR, 1000),
    (read) => !read.held,
    { what: 'no event held back' },
  );
  return page.events.filter((e) => e.accountId === accountId).map((e) => ({ kind: e.kind, details: e.details }));
}
