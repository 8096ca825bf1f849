/** The environment as config loaders read it: the only shape `process.env` is passed in as. */
export type Env = Readonly<Record<string, string | undefined>>;

/** A string variable, or the default when unset or empty. */
export function readString(env: Env, name: string, fallback: string): string {
  const value = env[name];
  return value === undefined || value === '' ? fallback : value;
}

/** An optional string variable: undefined when unset or empty. */
export function readOptional(env: Env, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value === '' ? undefined : value;
}

/** A whole-number variable; a value that is not one stops the start with a clear message. */
export function readInt(env: Env, name: string, fallback: number): number {
  const raw = readOptional(env, name);
  if (raw === undefined) return fallback;
  if (!/^-?\d+$/.test(raw)) throw new Error(`${name} must be a whole number, got "${raw}"`);
  return Number(raw);
}

/** A true/false variable (true, false, 1, 0). */
export function readBool(env: Env, name: string, fallback: boolean): boolean {
  const raw = readOptional(env, name)?.toLowerCase();
  if (raw === undefined) return fallback;
  if (raw === 'true' || raw === '1') return true;
  if (raw === 'false' || raw === '0') return false;
  throw new Error(`${name} must be true or false, got "${raw}"`);
}
