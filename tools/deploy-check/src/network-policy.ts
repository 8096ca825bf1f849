import { K8sObject } from './k8s-object';
import { findObject, podTemplate } from './workload';

type Labels = Record<string, string>;

interface LabelSelector {
  matchLabels?: Labels;
  matchExpressions?: { key: string; operator: string; values?: string[] }[];
}

interface PolicyPeer {
  podSelector?: LabelSelector;
  namespaceSelector?: LabelSelector;
  ipBlock?: { cidr: string };
}

interface PolicyPort {
  port?: number | string;
  endPort?: number;
  protocol?: string;
}

interface NetworkPolicySpec {
  podSelector?: LabelSelector;
  policyTypes?: string[];
  ingress?: { from?: PolicyPeer[]; ports?: PolicyPort[] }[];
}

/** Someone who may try to connect: a pod with its labels, in the render's namespace or in another. */
export interface Peer {
  /** How the results name it. */
  name: string;
  podLabels: Labels;
  /** The labels of its namespace; absent for a pod of the render's own namespace. */
  namespaceLabels?: Labels;
}

/** Whether a label selector (matchLabels and matchExpressions; {} selects everything) selects these labels. */
export function selects(selector: LabelSelector | undefined, labels: Labels): boolean {
  if (!selector) return false;
  const byLabels = Object.entries(selector.matchLabels ?? {}).every(([k, v]) => labels[k] === v);
  const byExpressions = (selector.matchExpressions ?? []).every(({ key, operator, values = [] }) => {
    if (operator === 'In') return key in labels && values.includes(labels[key]);
    if (operator === 'NotIn') return !(key in labels) || !values.includes(labels[key]);
    if (operator === 'Exists') return key in labels;
    if (operator === 'DoesNotExist') return !(key in labels);
    return false;
  });
  return byLabels && byExpressions;
}

const policies = (objects: K8sObject[]) => objects.filter((o) => o.apiVersion === 'networking.k8s.io/v1' && o.kind === 'NetworkPolicy');
const specOf = (policy: K8sObject) => (policy.spec ?? {}) as NetworkPolicySpec;
// Without policyTypes, a policy always governs ingress (and egress only when it has egress rules).
const governsIngress = (spec: NetworkPolicySpec) => !spec.policyTypes || spec.policyTypes.includes('Ingress');

/** Whether a `from` entry lets the peer in. An ipBlock is taken to let everyone in: it is not checked here. */
function admits(entry: PolicyPeer, peer: Peer, ownNamespace: Labels): boolean {
  if (entry.ipBlock) return true;
  if (!entry.podSelector && !entry.namespaceSelector) return false;
  const namespaceOk = entry.namespaceSelector
    ? selects(entry.namespaceSelector, peer.namespaceLabels ?? ownNamespace)
    : peer.namespaceLabels === undefined;
  return namespaceOk && (!entry.podSelector || selects(entry.podSelector, peer.podLabels));
}

/**
 * For each port the Deployment's container declares (by name, else by number), the peers that
 * may connect to it under the render's NetworkPolicies, sorted: the union over the ingress rules
 * of every policy selecting the pod. A pod no policy selects takes anyone on every port.
 */
export function reachableFrom(objects: K8sObject[], deploymentName: string, peers: Peer[]): Record<string, string[]> {
  const deployment = findObject(objects, 'Deployment', deploymentName);
  if (!deployment) throw new Error(`no single Deployment named ${deploymentName}`);
  const { labels, spec } = podTemplate(deployment);
  const namespace = objects.find((o) => o.kind === 'Namespace');
  const namespaceName = deployment.metadata.namespace ?? namespace?.metadata.name ?? '';
  const ownNamespace: Labels = { ...(namespace?.metadata.labels ?? {}), 'kubernetes.io/metadata.name': namespaceName };
  const governing = policies(objects)
    .filter((p) => (p.metadata.namespace ?? namespaceName) === namespaceName)
    .map(specOf)
    .filter((p) => governsIngress(p) && selects(p.podSelector, labels));

  const result: Record<string, string[]> = {};
  for (const container of spec.containers) {
    for (const port of container.ports ?? []) {
      const protocol = port.protocol ?? 'TCP';
      const opens = (p: PolicyPort) =>
        (p.protocol ?? 'TCP') === protocol &&
        (p.port === undefined ||
          p.port === port.name ||
          p.port === port.containerPort ||
          (typeof p.port === 'number' && p.endPort !== undefined && p.port <= port.containerPort && port.containerPort <= p.endPort));
      const allowed = peers.filter(
        (peer) =>
          governing.length === 0 ||
          governing.some((policy) =>
            (policy.ingress ?? []).some(
              (rule) =>
                (!rule.ports?.length || rule.ports.some(opens)) &&
                (!rule.from?.length || rule.from.some((entry) => admits(entry, peer, ownNamespace))),
            ),
          ),
      );
      result[port.name ?? String(port.containerPort)] = allowed.map((p) => p.name).sort();
    }
  }
  return result;
}

/** Problems unless a NetworkPolicy of the render selects every pod and allows them no ingress at all. */
export function defaultDenyProblems(objects: K8sObject[]): string[] {
  const denyAll = policies(objects).some((p) => {
    const spec = specOf(p);
    const selector = spec.podSelector;
    const everyPod = selector !== undefined && !Object.keys(selector.matchLabels ?? {}).length && !(selector.matchExpressions ?? []).length;
    return everyPod && governsIngress(spec) && !(spec.ingress ?? []).length;
  });
  return denyAll ? [] : ['no NetworkPolicy refuses all ingress by default (podSelector {}, policyTypes [Ingress], no ingress rule)'];
}
