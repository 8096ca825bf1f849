/** Rows of a query result. */
export interface QueryResult<R> {
  rows: R[];
  rowCount: number;
}

/** Something SQL can be sent to: the database, or one transaction of it. */
export interface Queryable {
  query<R = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<QueryResult<R>>;
}

/** A channel being listened to (Database.listen). */
export interface Listening {
  /** Stops listening (and closes the connection that listened). */
  close(): Promise<void>;
}

/** A Postgres database: a pool on a server, or an embedded PGlite. */
export interface Database extends Queryable {
  /** Runs `fn` in one transaction: committed when it resolves, rolled back when it throws. */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  /**
   * Calls `heard` for each NOTIFY on `channel` (a name of lower-case letters, digits and _), on a
   * connection of its own; `lost` hears that the connection failed (nothing more is heard: close,
   * and listen again). A notification is a hint to look, never the news itself: one may be missed
   * while a connection is replaced.
   */
  listen(channel: string, heard: () => void, lost: (err: unknown) => void): Promise<Listening>;
  close(): Promise<void>;
}
