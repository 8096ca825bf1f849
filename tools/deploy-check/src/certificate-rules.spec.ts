import { certificateProblems, parseGoDuration } from './certificate-rules';
import { demoCertificate, demoPki } from './fixtures';
import { K8sObject } from './k8s-object';

type Spec = Record<string, unknown> & { privateKey: Record<string, unknown>; issuerRef: Record<string, unknown> };
const specOf = (o: K8sObject) => o.spec as Spec;

/** The problems of the demo CA, a server "api" in namespace ns and a client "cli", after `change`. */
function problemsAfter(change: (api: Spec, cli: Spec, objects: K8sObject[]) => void): string[] {
  const api = demoCertificate('api', 'ns', ['api', 'api.ns.svc', 'api.ns.svc.cluster.local']);
  const cli = demoCertificate('cli', 'ns');
  const objects = [...demoPki(), api, cli];
  change(specOf(api), specOf(cli), objects);
  return certificateProblems(objects, ['api']);
}

describe('certificateProblems', () => {
  it('finds nothing wrong with a CA and the identities it issues', () => {
    expect(problemsAfter(() => undefined)).toEqual([]);
  });

  it('refuses an identity whose URI SAN, common name or Secret is not its own', () => {
    expect(
      problemsAfter((api, cli) => {
        api.uris = ['spiffe://chat-gateway/api', 'spiffe://chat-gateway/ctl'];
        cli.uris = ['spiffe://chat-gateway/edge'];
        cli.commonName = 'edge';
        cli.secretName = 'edge-tls';
      }),
    ).toEqual([
      'Certificate/ns/api: its URI SANs are ["spiffe://chat-gateway/api","spiffe://chat-gateway/ctl"], not [spiffe://chat-gateway/api] alone',
      'Certificate/ns/cli: its URI SANs are ["spiffe://chat-gateway/edge"], not [spiffe://chat-gateway/cli] alone',
      'Certificate/ns/cli: commonName edge is not cli',
      'Certificate/ns/cli: secretName edge-tls is not cli-tls',
    ]);
  });

  it('refuses a server without the DNS names of its Service in its namespace', () => {
    expect(problemsAfter((api) => (api.dnsNames = ['api', 'api.other.svc']))).toEqual([
      'Certificate/ns/api: dnsNames lack api.ns.svc, api.ns.svc.cluster.local',
    ]);
  });

  it('refuses a kept key, a missing usage, an unknown algorithm, a renewal not before expiry', () => {
    expect(
      problemsAfter((api) => {
        api.privateKey = { algorithm: 'Ed25519', rotationPolicy: 'Never' };
        api.usages = ['server auth'];
        api.renewBefore = '2160h';
      }),
    ).toEqual([
      'Certificate/ns/api: renewBefore 2160h is not below duration 2160h',
      'Certificate/ns/api: usages lack client auth',
      'Certificate/ns/api: privateKey.algorithm Ed25519 is neither ECDSA nor RSA',
      'Certificate/ns/api: privateKey.rotationPolicy is not Always: a renewal would keep the old key',
    ]);
    expect(problemsAfter((api) => delete api.duration)).toEqual([
      'Certificate/ns/api: duration and renewBefore must both be set (Go durations such as 2160h)',
    ]);
  });

  it('refuses an identity issued by a ClusterIssuer, by the self-signed Issuer, or by a CA without its CA Certificate', () => {
    expect(
      problemsAfter((api, cli, objects) => {
        api.issuerRef = { kind: 'ClusterIssuer', name: 'demo-ca' };
        cli.issuerRef = { name: 'demo-selfsigned' };
        objects.splice(1, 1);
      }),
    ).toEqual([
      'Issuer/demo-ca: its CA Secret demo-ca is produced by no isCA Certificate of the render',
      'Certificate/ns/api: issued by ClusterIssuer/demo-ca, which is not an Issuer of the render',
      'Certificate/ns/cli: issued by Issuer/demo-selfsigned, which is not a CA Issuer',
    ]);
  });

  it('refuses two Certificates writing one Secret, and one without the label naming its identity', () => {
    expect(
      problemsAfter((_api, _cli, objects) => {
        objects.push({ ...demoCertificate('cli', 'ns'), metadata: { name: 'cli-2', namespace: 'ns' } });
      }),
    ).toEqual([
      'Certificate/ns/cli-2: has no label app.kubernetes.io/name naming its identity',
      'Certificate/ns/cli and Certificate/ns/cli-2 both write the Secret cli-tls',
    ]);
  });
});

describe('parseGoDuration', () => {
  it.each([
    ['2160h', 7776000],
    ['1h30m0s', 5400],
    ['90s', 90],
    ['500ms', 0.5],
    ['90d', NaN],
    ['', NaN],
    ['1h 30m', NaN],
  ])('%s', (text, seconds) => {
    expect(parseGoDuration(text)).toBe(seconds);
  });
});
