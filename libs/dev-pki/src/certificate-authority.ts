import { generateKeyPairSync, randomBytes } from 'node:crypto';
import forge from 'node-forge';

const { pki } = forge;
const DAY_MS = 86_400_000;

/** A certificate and its private key, both PEM. */
export interface KeyPairPem {
  certPem: string;
  keyPem: string;
}

/** What a certificate issued by the CA says of its holder. */
export interface CertificateRequest {
  /** The holder: URI SAN spiffe://<trustDomain>/<identity> and common name <identity>. */
  identity: string;
  trustDomain: string;
  /** Host names the certificate also answers for (a server reached by name). */
  dnsNames?: string[];
  ips?: string[];
  notBefore?: Date;
  notAfter?: Date;
}

/** A fresh RSA key pair, made by node:crypto (forge's own generator is pure JavaScript and slow). */
function newKeys(): { publicKey: forge.pki.PublicKey; privateKey: forge.pki.rsa.PrivateKey; keyPem: string } {
  const { publicKey, privateKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  return { publicKey: pki.publicKeyFromPem(publicKey), privateKey: pki.privateKeyFromPem(privateKey), keyPem: privateKey };
}

/** A positive serial number of 128 random bits. */
const serialNumber = () => `01${randomBytes(16).toString('hex')}`;

/** A self-signed certificate authority that signs the gateway's certificates. */
export function createCertificateAuthority(commonName: string, validDays: number, now = new Date()): KeyPairPem {
  const keys = newKeys();
  const cert = pki.createCertificate();
  cert.publicKey = keys.publicKey;
  cert.serialNumber = serialNumber();
  cert.validity.notBefore = new Date(now.getTime() - 60_000);
  cert.validity.notAfter = new Date(now.getTime() + validDays * DAY_MS);
  const subject = [{ name: 'commonName', value: commonName }];
  cert.setSubject(subject);
  cert.setIssuer(subject);
  cert.setExtensions([
    { name: 'basicConstraints', cA: true, critical: true },
    { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
    { name: 'subjectKeyIdentifier' },
  ]);
  cert.sign(keys.privateKey, forge.md.sha256.create());
  return { certPem: pki.certificateToPem(cert), keyPem: keys.keyPem };
}

/** A certificate for one identity, signed by `ca`, good for both ends of a mutual-TLS connection. */
export function issueCertificate(ca: KeyPairPem, request: CertificateRequest, validDays = 365): KeyPairPem {
  const caCert = pki.certificateFromPem(ca.certPem);
  const caKey = pki.privateKeyFromPem(ca.keyPem);
  const keys = newKeys();
  const now = Date.now();
  const cert = pki.createCertificate();
  cert.publicKey = keys.publicKey;
  cert.serialNumber = serialNumber();
  cert.validity.notBefore = request.notBefore ?? new Date(now - 60_000);
  cert.validity.notAfter = request.notAfter ?? new Date(now + validDays * DAY_MS);
  cert.setSubject([{ name: 'commonName', value: request.identity }]);
  cert.setIssuer(caCert.subject.attributes);
  cert.setExtensions([
    { name: 'basicConstraints', cA: false },
    { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
    { name: 'extKeyUsage', serverAuth: true, clientAuth: true },
    {
      name: 'subjectAltName',
      altNames: [
        { type: 6, value: `spiffe://${request.trustDomain}/${request.identity}` },
        ...(request.dnsNames ?? []).map((value) => ({ type: 2, value })),
        ...(request.ips ?? []).map((ip) => ({ type: 7, ip })),
      ],
    },
    { name: 'subjectKeyIdentifier' },
    { name: 'authorityKeyIdentifier', keyIdentifier: caCert.generateSubjectKeyIdentifier().getBytes() },
  ]);
  cert.sign(caKey, forge.md.sha256.create());
  return { certPem: pki.certificateToPem(cert), keyPem: keys.keyPem };
}
