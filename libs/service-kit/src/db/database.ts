/** Rows of a query result. */
export interface QueryResult<R> {
  rows: R[];
  rowCount: number;
}

/** Something SQL can be sent to: the database, or one transaction of it. */
export interface Queryable {
  query<R = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<QueryResult<R>>;
}

/** A Postgres database: a pool on a server, or an embedded PGlite. */
export interface Database extends Queryable {
  /** Runs `fn` in one transaction: committed when it resolves, rolled back when it throws. */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}
