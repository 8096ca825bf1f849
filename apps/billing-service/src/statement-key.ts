import { randomBytes, KeyObject } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { signingKeyFromSeed } from '@gw/statement';

/** Where the statement signing key comes from: STATEMENT_SIGNING_KEY, or (unset) the file beside the embedded data. */
export interface StatementKeySource {
  /** STATEMENT_SIGNING_KEY as set, undefined when unset. */
  value: string | undefined;
  /** The file used when it is unset: read, or made on the first start ($DATA_DIR/statement.key). */
  file: string;
}

/**
 * The Ed25519 key that signs statements: STATEMENT_SIGNING_KEY's seed, or, unset, the file's (a
 * random seed as hex, made once, readable by its owner only), so that `npm start` signs with
 * nothing to set. Replicas must share the key: statements of one month signed by two keys would
 * each verify only against their own.
 */
export function loadStatementKey(source: StatementKeySource): { key: KeyObject; from: 'STATEMENT_SIGNING_KEY' | 'file' } {
  if (source.value !== undefined) {
    try {
      return { key: signingKeyFromSeed(source.value.trim()), from: 'STATEMENT_SIGNING_KEY' };
    } catch {
      throw new Error('STATEMENT_SIGNING_KEY must be 64 hex characters: an Ed25519 seed (openssl rand -hex 32)');
    }
  }
  mkdirSync(dirname(source.file), { recursive: true });
  try {
    // 'wx': a replica starting at the same time may have made it first; then its key is the one read.
    writeFileSync(source.file, `${randomBytes(32).toString('hex')}\n`, { flag: 'wx', mode: 0o600 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  try {
    return { key: signingKeyFromSeed(readFileSync(source.file, 'utf8').trim()), from: 'file' };
  } catch {
    throw new Error(`${source.file} must hold an Ed25519 seed of 64 hex characters`);
  }
}
