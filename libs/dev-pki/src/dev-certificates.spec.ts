import { createPrivateKey, X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCertificateAuthority, issueCertificate } from './certificate-authority';
import { ensureDevCertificates } from './dev-certificates';

describe('ensureDevCertificates', () => {
  const root = mkdtempSync(join(tmpdir(), 'gw-dev-pki-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const cert = (path: string) => new X509Certificate(readFileSync(join(root, path)));

  it("makes a CA and, per identity, a certificate in cert-manager's layout that names it and is signed by the CA", () => {
    expect(ensureDevCertificates(root, ['edge', 'chat-product'])).toEqual(['edge', 'chat-product']);
    const ca = cert('ca.crt');
    expect(ca.ca).toBe(true);
    for (const identity of ['edge', 'chat-product']) {
      const leaf = cert(`${identity}/tls.crt`);
      expect(leaf.verify(ca.publicKey)).toBe(true);
      expect(leaf.subjectAltName).toContain(`URI:spiffe://chat-gateway/${identity}`);
      expect(leaf.subject).toBe(`CN=${identity}`);
      expect(cert(`${identity}/ca.crt`).fingerprint256).toBe(ca.fingerprint256);
      expect(leaf.checkPrivateKey(createPrivateKey(readFileSync(join(root, identity, 'tls.key'))))).toBe(true);
    }
  });

  it('keeps what is there and good, and issues anew a certificate another CA signed', () => {
    const edgeBefore = cert('edge/tls.crt').fingerprint256;
    expect(ensureDevCertificates(root, ['edge', 'chat-product'])).toEqual([]);
    const foreign = issueCertificate(createCertificateAuthority('another CA', 1), {
      identity: 'chat-product',
      trustDomain: 'chat-gateway',
    });
    writeFileSync(join(root, 'chat-product', 'tls.crt'), foreign.certPem);
    expect(ensureDevCertificates(root, ['edge', 'chat-product'])).toEqual(['chat-product']);
    expect(cert('chat-product/tls.crt').verify(cert('ca.crt').publicKey)).toBe(true);
    expect(cert('edge/tls.crt').fingerprint256).toBe(edgeBefore);
  });
});
