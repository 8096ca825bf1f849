export { createCertificateAuthority, issueCertificate } from './certificate-authority';
export type { CertificateRequest, KeyPairPem } from './certificate-authority';
export { ensureDevCertificates } from './dev-certificates';
