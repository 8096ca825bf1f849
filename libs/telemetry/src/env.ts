/** Environment variables as process.env holds them. */
export type Env = Record<string, string | undefined>;
