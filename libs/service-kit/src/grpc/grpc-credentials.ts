import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { X509Certificate } from 'node:crypto';
import { PeerCertificate } from 'node:tls';
import { ChannelCredentials, credentials, experimental, ServerCredentials } from '@grpc/grpc-js';
import { identityOf } from '@gw/identity';
import { GrpcSecurity } from './grpc-security';

type MtlsSecurity = Extract<GrpcSecurity, { kind: 'mtls' }>;

/** One file watcher per folder and process: channels with equal credentials share connections. */
const providers = new Map<string, experimental.CertificateProvider>();
const identityChecks = new Map<string, (host: string, cert: PeerCertificate) => Error | undefined>();

/**
 * Fails the start with a readable reason when the folder lacks a certificate, key or CA, rather
 * than leaving every call to wait for credentials that never load.
 */
function checkFiles({ dir }: MtlsSecurity): void {
  const read = (name: string) => {
    try {
      return readFileSync(join(dir, name));
    } catch {
      throw new Error(
        `TLS_DIR ${dir} has no readable ${name} (npm start creates development certificates under $DATA_DIR/tls; see docs/deploy.md)`,
      );
    }
  };
  new X509Certificate(read('ca.crt'));
  new X509Certificate(read('tls.crt'));
  read('tls.key');
}

/** The certificate, key and CA of `security.dir`, re-read every `refreshMs`, so a rotated certificate serves the next connection. */
function certificateProvider(security: MtlsSecurity): experimental.CertificateProvider {
  const key = `${security.dir}|${security.refreshMs}`;
  let provider = providers.get(key);
  if (!provider) {
    checkFiles(security);
    provider = new experimental.FileWatcherCertificateProvider({
      certificateFile: join(security.dir, 'tls.crt'),
      privateKeyFile: join(security.dir, 'tls.key'),
      caCertificateFile: join(security.dir, 'ca.crt'),
      refreshIntervalMs: security.refreshMs,
    });
    providers.set(key, provider);
  }
  return provider;
}

/**
 * A server's credentials: its certificate, and a client certificate asked of every caller. A
 * caller without a valid one still completes the handshake, so that the access interceptor can
 * answer it UNAUTHENTICATED (and log and count it), and so that probes reach the health service.
 */
export function serverCredentials(security: GrpcSecurity): ServerCredentials {
  if (security.kind === 'insecure') return ServerCredentials.createInsecure();
  const provider = certificateProvider(security);
  return experimental.createCertificateProviderServerCredentials(provider, provider, false);
}

/**
 * A client's credentials: its certificate, and the server must present one of our CA naming
 * `serverIdentity` (spiffe://chat-gateway/<identity>), whatever address it was reached at.
 */
export function channelCredentials(security: GrpcSecurity, serverIdentity: string): ChannelCredentials {
  if (security.kind === 'insecure') return credentials.createInsecure();
  let checkServerIdentity = identityChecks.get(serverIdentity);
  if (!checkServerIdentity) {
    checkServerIdentity = (_host, cert) => {
      const presented = identityOf(cert);
      return presented === serverIdentity
        ? undefined
        : new Error(`expected the server ${serverIdentity}, it presented a certificate of ${presented ?? 'no identity'}`);
    };
    identityChecks.set(serverIdentity, checkServerIdentity);
  }
  const provider = certificateProvider(security);
  return experimental.createCertificateProviderChannelCredentials(provider, provider, { checkServerIdentity });
}
