import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The environment variables an app's config.ts reads, and the literal defaults of the whole-number ones. */
export interface AppEnv {
  names: Set<string>;
  intDefaults: Map<string, number>;
}

// readInt(env, 'NAME', 30_000) | readString(env, 'NAME', '...') | readOptional(env, 'NAME') | readBool(env, 'NAME', false)
const READ = /\bread(Int|String|Optional|Bool)\(\s*env\s*,\s*'([A-Z][A-Z0-9_]*)'\s*(?:,\s*([^)]*?))?\s*\)/g;

/** Parses the source of a config.ts (see libs/service-kit env-readers) for the variables it reads. */
export function parseAppEnv(source: string): AppEnv {
  const names = new Set<string>();
  const intDefaults = new Map<string, number>();
  for (const [, reader, name, fallback] of source.matchAll(READ)) {
    names.add(name);
    if (reader === 'Int' && fallback !== undefined && /^\d[\d_]*$/.test(fallback)) intDefaults.set(name, Number(fallback.replace(/_/g, '')));
  }
  return { names, intDefaults };
}

/** The variables apps/<app>/src/config.ts reads. */
export function readAppEnv(root: string, app: string): AppEnv {
  return parseAppEnv(readFileSync(join(root, 'apps', app, 'src', 'config.ts'), 'utf8'));
}
