import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { AuditKey } from './audit-chain';

/** The shortest AUDIT_KEY taken: 32 characters (a 32-byte key as hex is 64). */
export const MIN_AUDIT_KEY_LENGTH = 32;

/** Where the key comes from: AUDIT_KEY, or (unset) the file beside the embedded data. */
export interface AuditKeySource {
  /** AUDIT_KEY as set, undefined when unset. */
  value: string | undefined;
  /** The file used when it is unset: read, or made on the first start ($DATA_DIR/audit.key). */
  file: string;
}

/**
 * The chain's key: AUDIT_KEY's bytes, or, unset, the file's (a random 32-byte key as hex, made
 * once, readable by its owner only), so that `npm start` on embedded defaults keys its chains
 * with nothing to set. Replicas sharing a Postgres must share AUDIT_KEY: the file is one machine's.
 */
export function loadAuditKey(source: AuditKeySource): { key: AuditKey; from: 'AUDIT_KEY' | 'file' } {
  if (source.value !== undefined) {
    if (source.value.length < MIN_AUDIT_KEY_LENGTH) throw new Error(`AUDIT_KEY must be at least ${MIN_AUDIT_KEY_LENGTH} characters`);
    return { key: Buffer.from(source.value, 'utf8'), from: 'AUDIT_KEY' };
  }
  mkdirSync(dirname(source.file), { recursive: true });
  try {
    // 'wx': a service starting at the same time may have made it first; then its key is the one read.
    writeFileSync(source.file, `${randomBytes(32).toString('hex')}\n`, { flag: 'wx', mode: 0o600 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  const text = readFileSync(source.file, 'utf8').trim();
  if (text.length < MIN_AUDIT_KEY_LENGTH) throw new Error(`${source.file} must hold a key of at least ${MIN_AUDIT_KEY_LENGTH} characters`);
  return { key: Buffer.from(text, 'utf8'), from: 'file' };
}
