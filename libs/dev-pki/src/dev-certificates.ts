import { X509Certificate } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { GATEWAY_IDENTITIES, TRUST_DOMAIN } from '@gw/identity';
import { createCertificateAuthority, issueCertificate, KeyPairPem } from './certificate-authority';

const RENEW_WITHIN_MS = 30 * 86_400_000;
const STALE_LOCK_MS = 60_000;

/** Writes a file whole or not at all: a reader never sees half a key. */
function writeAtomically(path: string, content: string): void {
  const temp = `${path}.${process.pid}.tmp`;
  writeFileSync(temp, content, { mode: 0o600 });
  renameSync(temp, path);
}

function readPair(certPath: string, keyPath: string): KeyPairPem | undefined {
  if (!existsSync(certPath) || !existsSync(keyPath)) return undefined;
  return { certPem: readFileSync(certPath, 'utf8'), keyPem: readFileSync(keyPath, 'utf8') };
}

/** A certificate signed by `ca` that is valid for another 30 days at least. */
function stillGood(pair: KeyPairPem | undefined, ca: X509Certificate): boolean {
  if (!pair) return false;
  const cert = new X509Certificate(pair.certPem);
  return cert.checkIssued(ca) && cert.verify(ca.publicKey) && Date.parse(cert.validTo) - Date.now() > RENEW_WITHIN_MS;
}

/** Runs `work` while holding a lock folder under `root`, so two starts never make two CAs. */
function withLock<T>(root: string, work: () => T): T {
  const lock = join(root, '.lock');
  const deadline = Date.now() + STALE_LOCK_MS;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      if (Date.now() > deadline || Date.now() - statSync(lock).mtimeMs > STALE_LOCK_MS) rmdirSync(lock);
      else Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 50);
    }
  }
  try {
    return work();
  } finally {
    rmdirSync(lock);
  }
}

/**
 * Makes sure `root` holds a development CA (ca.crt, ca.key) and, for each identity, a folder
 * `<identity>/` with tls.crt, tls.key and ca.crt (cert-manager's Secret layout) signed by it.
 * What is there and good is kept; a missing, foreign or nearly expired certificate is issued
 * anew. Returns the identities whose certificates were made.
 */
export function ensureDevCertificates(root: string, identities: readonly string[] = GATEWAY_IDENTITIES): string[] {
  mkdirSync(root, { recursive: true });
  return withLock(root, () => {
    const caCertPath = join(root, 'ca.crt');
    const caKeyPath = join(root, 'ca.key');
    let ca = readPair(caCertPath, caKeyPath);
    if (!ca || Date.parse(new X509Certificate(ca.certPem).validTo) - Date.now() < RENEW_WITHIN_MS) {
      ca = createCertificateAuthority('chat-gateway development CA', 3650);
      writeAtomically(caKeyPath, ca.keyPem);
      writeAtomically(caCertPath, ca.certPem);
    }
    const caCert = new X509Certificate(ca.certPem);
    const made: string[] = [];
    for (const identity of identities) {
      const dir = join(root, identity);
      mkdirSync(dir, { recursive: true });
      if (stillGood(readPair(join(dir, 'tls.crt'), join(dir, 'tls.key')), caCert) && existsSync(join(dir, 'ca.crt'))) continue;
      const pair = issueCertificate(ca, {
        identity,
        trustDomain: TRUST_DOMAIN,
        dnsNames: [identity, 'localhost'],
        ips: ['127.0.0.1', '::1'],
      });
      writeAtomically(join(dir, 'tls.key'), pair.keyPem);
      writeAtomically(join(dir, 'tls.crt'), pair.certPem);
      writeAtomically(join(dir, 'ca.crt'), ca.certPem);
      made.push(identity);
    }
    return made;
  });
}
