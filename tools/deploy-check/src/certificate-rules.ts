import { TRUST_DOMAIN } from '@gw/identity';
import { describe, K8sObject } from './k8s-object';

interface CertificateSpec {
  secretName?: string;
  commonName?: string;
  isCA?: boolean;
  uris?: string[];
  dnsNames?: string[];
  usages?: string[];
  duration?: string;
  renewBefore?: string;
  privateKey?: { algorithm?: string; rotationPolicy?: string };
  issuerRef?: { name?: string; kind?: string; group?: string };
}

interface IssuerSpec {
  ca?: { secretName?: string };
  selfSigned?: object;
}

const UNITS: Record<string, number> = { h: 3600, m: 60, s: 1, ms: 1e-3, us: 1e-6, µs: 1e-6, ns: 1e-9 };

/** A Go duration ("2160h", "1h30m0s") in seconds, or NaN when it is not one. */
export function parseGoDuration(text: string): number {
  const parts = [...text.matchAll(/(\d+(?:\.\d+)?)(h|ms|m|s|us|µs|ns)/g)];
  if (!parts.length || parts.map((p) => p[0]).join('') !== text) return NaN;
  return parts.reduce((sum, [, n, unit]) => sum + Number(n) * UNITS[unit], 0);
}

const isCertManager = (o: K8sObject, kind: string) => o.apiVersion === 'cert-manager.io/v1' && o.kind === kind;

/**
 * Everything wrong with the cert-manager objects of a render; empty when all is well.
 * - every Certificate is issued by an Issuer of the render (namespaced: no ClusterIssuer), and
 *   every CA Issuer signs with the Secret of an isCA Certificate of the render;
 * - every other Certificate is an identity: issued by a CA Issuer, labelled
 *   app.kubernetes.io/name=<identity>, with the URI SAN spiffe://chat-gateway/<identity> alone,
 *   commonName <identity>, Secret <identity>-tls, usages server auth and client auth, an ECDSA or
 *   RSA key made anew at each renewal (rotationPolicy Always), and duration and renewBefore set;
 * - the identities of `servers` also carry the DNS names of their Service: <identity>,
 *   <identity>.<namespace>.svc and <identity>.<namespace>.svc.cluster.local.
 */
export function certificateProblems(objects: K8sObject[], servers: string[]): string[] {
  const problems: string[] = [];
  const issuers = new Map(objects.filter((o) => isCertManager(o, 'Issuer')).map((o) => [o.metadata.name, (o.spec ?? {}) as IssuerSpec]));
  const certificates = objects.filter((o) => isCertManager(o, 'Certificate'));
  const caSecrets = new Set(
    certificates.filter((c) => (c.spec as CertificateSpec).isCA === true).map((c) => (c.spec as CertificateSpec).secretName),
  );

  for (const [name, spec] of issuers) {
    if (spec.ca && !caSecrets.has(spec.ca.secretName))
      problems.push(`Issuer/${name}: its CA Secret ${spec.ca.secretName} is produced by no isCA Certificate of the render`);
  }
  const bySecret = new Map<string, string[]>();
  for (const cert of certificates) {
    const spec = (cert.spec ?? {}) as CertificateSpec;
    const say = (what: string) => problems.push(`${describe(cert)}: ${what}`);
    bySecret.set(String(spec.secretName), [...(bySecret.get(String(spec.secretName)) ?? []), describe(cert)]);

    const ref = spec.issuerRef ?? {};
    const issuer =
      (ref.kind ?? 'Issuer') === 'Issuer' && (ref.group ?? 'cert-manager.io') === 'cert-manager.io'
        ? issuers.get(String(ref.name))
        : undefined;
    if (!issuer) say(`issued by ${ref.kind ?? 'Issuer'}/${ref.name}, which is not an Issuer of the render`);
    const duration = parseGoDuration(spec.duration ?? '');
    const renewBefore = parseGoDuration(spec.renewBefore ?? '');
    if (Number.isNaN(duration) || Number.isNaN(renewBefore)) say('duration and renewBefore must both be set (Go durations such as 2160h)');
    else if (!(renewBefore < duration)) say(`renewBefore ${spec.renewBefore} is not below duration ${spec.duration}`);
    if (spec.isCA) continue;

    if (issuer && !issuer.ca) say(`issued by Issuer/${ref.name}, which is not a CA Issuer`);
    const identity = cert.metadata.labels?.['app.kubernetes.io/name'];
    if (!identity) {
      say('has no label app.kubernetes.io/name naming its identity');
      continue;
    }
    const uri = `spiffe://${TRUST_DOMAIN}/${identity}`;
    if (JSON.stringify(spec.uris ?? []) !== JSON.stringify([uri]))
      say(`its URI SANs are ${JSON.stringify(spec.uris ?? [])}, not [${uri}] alone`);
    if (spec.commonName !== identity) say(`commonName ${spec.commonName} is not ${identity}`);
    if (spec.secretName !== `${identity}-tls`) say(`secretName ${spec.secretName} is not ${identity}-tls`);
    for (const usage of ['server auth', 'client auth']) if (!(spec.usages ?? []).includes(usage)) say(`usages lack ${usage}`);
    if (!['ECDSA', 'RSA'].includes(spec.privateKey?.algorithm ?? ''))
      say(`privateKey.algorithm ${spec.privateKey?.algorithm} is neither ECDSA nor RSA`);
    if (spec.privateKey?.rotationPolicy !== 'Always') say('privateKey.rotationPolicy is not Always: a renewal would keep the old key');
    if (servers.includes(identity)) {
      const ns = cert.metadata.namespace;
      const want = ns ? [identity, `${identity}.${ns}.svc`, `${identity}.${ns}.svc.cluster.local`] : [identity];
      const missing = want.filter((n) => !(spec.dnsNames ?? []).includes(n));
      if (missing.length) say(`dnsNames lack ${missing.join(', ')}`);
    }
  }
  for (const [secret, owners] of bySecret) if (owners.length > 1) problems.push(`${owners.join(' and ')} both write the Secret ${secret}`);
  return problems;
}
