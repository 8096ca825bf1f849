import { join, resolve } from 'node:path';
import { Env, readBool, readInt, readString } from './env-readers';

/**
 * How a process speaks gRPC: mutual TLS with the certificate, key and CA in `dir` (cert-manager's
 * Secret layout: tls.crt, tls.key, ca.crt), re-read every `refreshMs`; or plain text, for local
 * experiments on loopback only.
 */
export type GrpcSecurity = { kind: 'mtls'; dir: string; refreshMs: number } | { kind: 'insecure' };

/**
 * Reads GRPC_INSECURE, TLS_DIR (default `$DATA_DIR/tls/<identity>`, where `npm start` puts the
 * development certificates) and TLS_REFRESH_MS. Each app's config.ts calls it with its identity.
 */
export function readGrpcSecurity(env: Env, identity: string): GrpcSecurity {
  if (readBool(env, 'GRPC_INSECURE', false)) return Object.freeze({ kind: 'insecure' });
  const dataDir = readString(env, 'DATA_DIR', '.data');
  const dir = resolve(readString(env, 'TLS_DIR', join(dataDir, 'tls', identity)));
  const refreshMs = readInt(env, 'TLS_REFRESH_MS', 60_000);
  if (refreshMs < 1) throw new Error(`TLS_REFRESH_MS must be at least 1, got ${refreshMs}`);
  return Object.freeze({ kind: 'mtls', dir, refreshMs });
}
