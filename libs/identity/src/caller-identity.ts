/** The trust domain of the gateway's identities: a certificate names its holder spiffe://chat-gateway/<identity>. */
export const TRUST_DOMAIN = 'chat-gateway';

/** Every identity of the gateway's gRPC hops, each with a certificate of its own. */
export const GATEWAY_IDENTITIES = [
  'edge',
  'auth-service',
  'quota-service',
  'billing-service',
  'ctl',
  'console',
  'chat-product',
  'notifier',
] as const;

/** One of GATEWAY_IDENTITIES. */
export type GatewayIdentity = (typeof GATEWAY_IDENTITIES)[number];

const URI_PREFIX = `URI:spiffe://${TRUST_DOMAIN}/`;

/** The parts of a peer certificate (node:tls PeerCertificate) that name its holder. */
export interface NamedCertificate {
  subjectaltname?: string;
  subject?: { CN?: string | string[] } | null;
}

/**
 * The identity a certificate names: its URI SAN spiffe://chat-gateway/<identity>, or else its
 * common name; undefined when it names neither.
 */
export function identityOf(cert: NamedCertificate): string | undefined {
  const uri = cert.subjectaltname?.split(', ').find((name) => name.startsWith(URI_PREFIX));
  if (uri) return uri.slice(URI_PREFIX.length);
  const cn = cert.subject?.CN;
  return (Array.isArray(cn) ? cn[0] : cn) || undefined;
}
