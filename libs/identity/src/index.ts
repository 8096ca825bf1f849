/** How the gateway names the holders of its certificates: no I/O, no dependencies. */
export { GATEWAY_IDENTITIES, identityOf, TRUST_DOMAIN } from './caller-identity';
export type { GatewayIdentity, NamedCertificate } from './caller-identity';
