import { join, resolve } from 'node:path';
import { Env } from '../process/env-readers';
import { defineSettings, readSetting, setting } from '../process/settings';

/**
 * How a process speaks gRPC: mutual TLS with the certificate, key and CA in `dir` (cert-manager's
 * Secret layout: tls.crt, tls.key, ca.crt), re-read every `refreshMs`; or plain text, for local
 * experiments on loopback only.
 */
export type GrpcSecurity = { kind: 'mtls'; dir: string; refreshMs: number } | { kind: 'insecure' };

/** The variables of gRPC's transport security, read by every app that speaks gRPC (readGrpcSecurity). */
export const GRPC_SECURITY_SETTINGS = defineSettings({
  GRPC_INSECURE: setting.bool(false, 'plain-text gRPC, no caller checked; services refuse it on any address but loopback'),
  DATA_DIR: setting.string('.data', 'the folder of embedded data, and of the development certificates under tls/'),
  TLS_DIR: setting.optional('the folder with ca.crt, tls.crt and tls.key of the mutual-TLS certificate; unset: $DATA_DIR/tls/<identity>'),
  TLS_REFRESH_MS: setting.int(60_000, 'how often those files are read again (a renewed certificate needs no restart)', { min: 1 }),
});

/**
 * Reads GRPC_SECURITY_SETTINGS: TLS_DIR defaults to `$DATA_DIR/tls/<identity>`, where `npm start`
 * puts the development certificates; with GRPC_INSECURE the others are not read. Each app's
 * config.ts calls it with its identity.
 */
export function readGrpcSecurity(env: Env, identity: string): GrpcSecurity {
  const read = <K extends keyof typeof GRPC_SECURITY_SETTINGS>(name: K) => readSetting(env, GRPC_SECURITY_SETTINGS, name);
  if (read('GRPC_INSECURE')) return Object.freeze({ kind: 'insecure' });
  const dataDir = read('DATA_DIR');
  const dir = resolve(read('TLS_DIR') ?? join(dataDir, 'tls', identity));
  return Object.freeze({ kind: 'mtls', dir, refreshMs: read('TLS_REFRESH_MS') });
}
