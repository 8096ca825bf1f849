import { demoDeployment } from './fixtures';
import { K8sObject } from './k8s-object';
import { defaultDenyProblems, Peer, reachableFrom, selects } from './network-policy';

const name = 'app.kubernetes.io/name';
const PEERS: Peer[] = [
  { name: 'caller', podLabels: { [name]: 'caller' } },
  { name: 'stranger', podLabels: { [name]: 'stranger' } },
  { name: 'monitoring', podLabels: {}, namespaceLabels: { 'kubernetes.io/metadata.name': 'monitoring' } },
  { name: 'caller elsewhere', podLabels: { [name]: 'caller' }, namespaceLabels: { 'kubernetes.io/metadata.name': 'elsewhere' } },
];
const namespace: K8sObject = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ns', labels: { team: 'gw' } } };
const denyAll: K8sObject = {
  apiVersion: 'networking.k8s.io/v1',
  kind: 'NetworkPolicy',
  metadata: { name: 'deny' },
  spec: { podSelector: {}, policyTypes: ['Ingress'] },
};

function policy(ingress: unknown[], podSelector: unknown = { matchLabels: { [name]: 'demo' } }): K8sObject {
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'NetworkPolicy',
    metadata: { name: 'demo' },
    spec: { podSelector, policyTypes: ['Ingress'], ingress },
  };
}

describe('reachableFrom', () => {
  it('lets anyone reach a pod no policy selects', () => {
    expect(reachableFrom([namespace, demoDeployment()], 'demo', PEERS)).toEqual({
      grpc: PEERS.map((p) => p.name).sort(),
      metrics: PEERS.map((p) => p.name).sort(),
    });
  });

  it('lets no one reach a pod the default deny selects alone', () => {
    expect(reachableFrom([namespace, demoDeployment(), denyAll], 'demo', PEERS)).toEqual({ grpc: [], metrics: [] });
  });

  it('opens each port to its peers only: pods of the namespace by label, other namespaces by theirs', () => {
    const allow = policy([
      { from: [{ podSelector: { matchLabels: { [name]: 'caller' } } }], ports: [{ port: 'grpc', protocol: 'TCP' }] },
      { from: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'monitoring' } } }], ports: [{ port: 7001 }] },
    ]);
    expect(reachableFrom([namespace, demoDeployment(), denyAll, allow], 'demo', PEERS)).toEqual({
      grpc: ['caller'],
      metrics: ['monitoring'],
    });
  });

  it('sees a rule without ports, without from, a namespaceSelector {} or an ipBlock open to more than it names', () => {
    const cases: [unknown, Record<string, string[]>][] = [
      [{ from: [{ podSelector: { matchLabels: { [name]: 'caller' } } }] }, { grpc: ['caller'], metrics: ['caller'] }],
      [{ ports: [{ port: 7000, endPort: 7001 }] }, { grpc: PEERS.map((p) => p.name).sort(), metrics: PEERS.map((p) => p.name).sort() }],
      [
        { from: [{ namespaceSelector: {}, podSelector: { matchLabels: { [name]: 'caller' } } }], ports: [{ port: 'grpc' }] },
        { grpc: ['caller', 'caller elsewhere'], metrics: [] },
      ],
      [
        { from: [{ ipBlock: { cidr: '10.0.0.0/8' } }], ports: [{ port: 'grpc' }] },
        { grpc: PEERS.map((p) => p.name).sort(), metrics: [] },
      ],
      [
        { from: [{ namespaceSelector: { matchLabels: { team: 'gw' } } }], ports: [{ port: 'grpc', protocol: 'UDP' }] },
        { grpc: [], metrics: [] },
      ],
      [
        { from: [{ namespaceSelector: { matchLabels: { team: 'gw' } } }], ports: [{ port: 'grpc' }] },
        { grpc: ['caller', 'stranger'], metrics: [] },
      ],
    ];
    for (const [rule, reachable] of cases)
      expect({ rule, reachable: reachableFrom([namespace, demoDeployment(), denyAll, policy([rule])], 'demo', PEERS) }).toEqual({
        rule,
        reachable,
      });
  });

  it('ignores a policy that selects other pods or governs egress only', () => {
    const open = [{ ports: [{ port: 'grpc' }] }];
    const others = policy(open, { matchLabels: { [name]: 'other' } });
    const egress = { ...policy(open), spec: { podSelector: {}, policyTypes: ['Egress'], ingress: open } };
    expect(reachableFrom([namespace, demoDeployment(), denyAll, others, egress], 'demo', PEERS)).toEqual({ grpc: [], metrics: [] });
  });
});

describe('selects', () => {
  it.each([
    [{}, { a: '1' }, true],
    [{ matchLabels: { a: '1' } }, { a: '1', b: '2' }, true],
    [{ matchLabels: { a: '1' } }, { a: '2' }, false],
    [{ matchExpressions: [{ key: 'a', operator: 'In', values: ['1', '2'] }] }, { a: '2' }, true],
    [{ matchExpressions: [{ key: 'a', operator: 'NotIn', values: ['1'] }] }, {}, true],
    [{ matchExpressions: [{ key: 'a', operator: 'Exists' }] }, {}, false],
    [{ matchExpressions: [{ key: 'a', operator: 'DoesNotExist' }] }, {}, true],
  ])('%j on %j: %s', (selector, labels, result) => {
    expect(selects(selector, labels)).toBe(result);
  });
});

describe('defaultDenyProblems', () => {
  it('wants a policy that selects every pod and allows no ingress', () => {
    expect(defaultDenyProblems([denyAll])).toEqual([]);
    expect(defaultDenyProblems([policy([])])).toEqual([
      'no NetworkPolicy refuses all ingress by default (podSelector {}, policyTypes [Ingress], no ingress rule)',
    ]);
    expect(defaultDenyProblems([policy([{}], {})])).toHaveLength(1);
  });
});
