import { Env, readBool, readInt, readOptional, readString } from './env-readers';

/** A whole-number variable, with its default and, when it has one, the least value it may take. */
export interface IntSetting {
  readonly kind: 'int';
  readonly default: number;
  readonly min?: number;
  readonly description: string;
}
/** A string variable with a default. */
export interface StringSetting {
  readonly kind: 'string';
  readonly default: string;
  readonly description: string;
}
/** A string variable without a default: undefined when unset or empty (its description says what that means). */
export interface OptionalSetting {
  readonly kind: 'optional';
  readonly description: string;
}
/** A true/false variable with a default. */
export interface BoolSetting {
  readonly kind: 'bool';
  readonly default: boolean;
  readonly description: string;
}
/** One environment variable of a settings table: how it is read, its default and, in one line, what it sets. */
export type Setting = IntSetting | StringSetting | OptionalSetting | BoolSetting;

/** Every variable one app (or one part shared by apps) reads, by name, in the order they are read. */
export type SettingsTable = Readonly<Record<string, Setting>>;

/** What each kind of setting reads as. */
interface ValueOfKind {
  int: number;
  string: string;
  optional: string | undefined;
  bool: boolean;
}
/** The values of a table, by variable name. */
export type SettingsValues<T extends SettingsTable> = { readonly [K in keyof T]: ValueOfKind[T[K]['kind']] };

/** The entries of a settings table, one per kind. */
export const setting = {
  int: (fallback: number, description: string, rule: { min?: number } = {}): IntSetting => ({
    kind: 'int',
    default: fallback,
    ...rule,
    description,
  }),
  string: (fallback: string, description: string): StringSetting => ({ kind: 'string', default: fallback, description }),
  optional: (description: string): OptionalSetting => ({ kind: 'optional', description }),
  bool: (fallback: boolean, description: string): BoolSetting => ({ kind: 'bool', default: fallback, description }),
};

/** A settings table, frozen, its entries' kinds kept in its type for readSettings. */
export function defineSettings<T extends SettingsTable>(table: T): T {
  return Object.freeze(table);
}

/** Reads one variable of a table, as env-readers read its kind; an int below its `min` stops the start too. */
export function readSetting<T extends SettingsTable, K extends keyof T & string>(env: Env, table: T, name: K): SettingsValues<T>[K] {
  const entry: Setting = table[name];
  return readEntry(env, name, entry) as SettingsValues<T>[K];
}

function readEntry(env: Env, name: string, entry: Setting): number | string | boolean | undefined {
  switch (entry.kind) {
    case 'int': {
      const value = readInt(env, name, entry.default);
      if (entry.min !== undefined && value < entry.min) throw new Error(`${name} must be at least ${entry.min}, got ${value}`);
      return value;
    }
    case 'string':
      return readString(env, name, entry.default);
    case 'optional':
      return readOptional(env, name);
    case 'bool':
      return readBool(env, name, entry.default);
  }
}

/** Reads every variable of a table, in its order (the first bad value stops the start), into a frozen object by name. */
export function readSettings<T extends SettingsTable>(env: Env, table: T): SettingsValues<T> {
  const values: Record<string, unknown> = {};
  for (const name of Object.keys(table)) values[name] = readSetting(env, table, name);
  return Object.freeze(values) as SettingsValues<T>;
}

/** The names of the variables of some tables, each once, sorted. */
export function settingNames(tables: readonly SettingsTable[]): string[] {
  return [...new Set(tables.flatMap((table) => Object.keys(table)))].sort();
}
