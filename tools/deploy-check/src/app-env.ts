import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The environment variables an app's config.ts reads, and the literal defaults of the whole-number ones. */
export interface AppEnv {
  names: Set<string>;
  intDefaults: Map<string, number>;
}

// readInt(env, 'NAME', 30_000) | readString(env, 'NAME', '...') | readOptional(env, 'NAME') | readBool(env, 'NAME', false).
// Only the reader and the name are matched, so a default that itself calls a reader
// (readString(env, 'TLS_DIR', join(readString(env, 'DATA_DIR', '.data'), 'tls'))) hides neither.
const READ = /\bread(Int|String|Optional|Bool)\(\s*env\s*,\s*'([A-Z][A-Z0-9_]*)'/g;
// What follows the name of a readInt with a literal whole-number default: ", 30_000)".
const INT_DEFAULT = /^\s*,\s*(\d[\d_]*)\s*\)/;

/** The file of libs/service-kit whose readGrpcSecurity(env, identity) reads the variables of gRPC's transport security. */
export const GRPC_SECURITY_SOURCE = join('libs', 'service-kit', 'src', 'grpc-security.ts');

/**
 * Parses the source of a config.ts (see libs/service-kit env-readers) for the variables it reads.
 * When it calls readGrpcSecurity(, the variables `grpcSecuritySource` reads count as its own.
 */
export function parseAppEnv(source: string, grpcSecuritySource?: string): AppEnv {
  const names = new Set<string>();
  const intDefaults = new Map<string, number>();
  const sources = [source];
  if (grpcSecuritySource !== undefined && /\breadGrpcSecurity\(/.test(source)) sources.push(grpcSecuritySource);
  for (const text of sources) {
    for (const match of text.matchAll(READ)) {
      const [whole, reader, name] = match;
      names.add(name);
      const fallback = reader === 'Int' ? INT_DEFAULT.exec(text.slice((match.index ?? 0) + whole.length)) : null;
      if (fallback) intDefaults.set(name, Number(fallback[1].replace(/_/g, '')));
    }
  }
  return { names, intDefaults };
}

/**
 * The variables apps/<app>/src/config.ts reads, with those of libs/service-kit/src/grpc-security.ts
 * when it calls readGrpcSecurity (none from there while that file does not exist).
 */
export function readAppEnv(root: string, app: string): AppEnv {
  const security = join(root, GRPC_SECURITY_SOURCE);
  return parseAppEnv(
    readFileSync(join(root, 'apps', app, 'src', 'config.ts'), 'utf8'),
    existsSync(security) ? readFileSync(security, 'utf8') : undefined,
  );
}
