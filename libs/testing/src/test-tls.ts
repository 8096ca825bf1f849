import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ensureDevCertificates } from '@gw/dev-pki';

/** The repository root (the folder with nx.json), wherever this file was bundled to. */
export function repoRoot(from = __dirname): string {
  for (let dir = from; dir !== dirname(dir); dir = dirname(dir)) if (existsSync(join(dir, 'nx.json'))) return dir;
  throw new Error(`no nx.json above ${from}`);
}

/**
 * The certificates every test of a run shares: a development CA and one folder per identity
 * (tls.crt, tls.key, ca.crt) under dist/test-tls, made on first use (RSA keys take seconds) and
 * kept while they are good. Tests that need other certificates (expired, foreign) make their own.
 */
export function testTlsRoot(): string {
  const root = join(repoRoot(), 'dist', 'test-tls');
  ensureDevCertificates(root);
  return root;
}

/** The certificate folder (TLS_DIR) of one identity: edge, ctl, chat-product, auth-service... */
export function testTlsDir(identity: string): string {
  return join(testTlsRoot(), identity);
}
