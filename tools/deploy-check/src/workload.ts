import { isMapping, K8sObject, Mapping } from './k8s-object';

/** Typed views of the parts of a Deployment the rules read (the schema check has run first). */
export interface Container extends Mapping {
  name: string;
  image?: string;
  ports?: { name?: string; containerPort: number; protocol?: string }[];
  env?: { name: string; value?: string; valueFrom?: Mapping }[];
  envFrom?: { configMapRef?: { name: string }; secretRef?: { name: string } }[];
  resources?: { requests?: Record<string, string | number>; limits?: Record<string, string | number> };
  readinessProbe?: Probe;
  livenessProbe?: Probe;
  startupProbe?: Probe;
  lifecycle?: { preStop?: { sleep?: { seconds: number } } };
  securityContext?: Mapping;
  volumeMounts?: { name: string; mountPath: string; readOnly?: boolean; subPath?: string; subPathExpr?: string }[];
}

export interface Probe {
  grpc?: { port: number; service?: string };
  httpGet?: { path?: string; port: number | string };
}

export interface PodSpec extends Mapping {
  containers: Container[];
  securityContext?: Mapping;
  terminationGracePeriodSeconds?: number;
  volumes?: { name: string; secret?: { secretName?: string; optional?: boolean } }[];
}

/** The pod template of a Deployment: its labels, annotations and spec. */
export function podTemplate(deployment: K8sObject): { labels: Record<string, string>; annotations: Record<string, string>; spec: PodSpec } {
  const spec = deployment.spec as {
    template: { metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> }; spec: PodSpec };
  };
  return { labels: spec.template.metadata?.labels ?? {}, annotations: spec.template.metadata?.annotations ?? {}, spec: spec.template.spec };
}

/** The one object of a kind and name, if there is exactly one. */
export function findObject(objects: K8sObject[], kind: string, name: string): K8sObject | undefined {
  const found = objects.filter((o) => o.kind === kind && o.metadata.name === name);
  return found.length === 1 ? found[0] : undefined;
}

/** Where an environment variable's value comes from. */
export type EnvSource = { value: string } | { secret: string; key: string } | { unresolved: string };

/**
 * Every variable a container gets, in Kubernetes' order of precedence (env over envFrom), with
 * ConfigMap values looked up among `objects`; a ConfigMap that is missing is reported as unresolved.
 */
export function containerEnv(container: Container, objects: K8sObject[]): Map<string, EnvSource> {
  const env = new Map<string, EnvSource>();
  for (const from of container.envFrom ?? []) {
    if (from.secretRef)
      env.set(`(envFrom secret ${from.secretRef.name})`, { unresolved: 'envFrom secretRef hides which keys reach the app' });
    if (!from.configMapRef) continue;
    const cm = findObject(objects, 'ConfigMap', from.configMapRef.name);
    if (!cm)
      env.set(`(envFrom configMap ${from.configMapRef.name})`, { unresolved: `ConfigMap ${from.configMapRef.name} is not in the render` });
    else for (const [k, v] of Object.entries((cm.data as Record<string, string> | undefined) ?? {})) env.set(k, { value: String(v) });
  }
  for (const e of container.env ?? []) {
    const from = e.valueFrom;
    if (!from) env.set(e.name, { value: e.value ?? '' });
    else if (isMapping(from.secretKeyRef)) env.set(e.name, { secret: String(from.secretKeyRef.name), key: String(from.secretKeyRef.key) });
    else if (isMapping(from.configMapKeyRef)) {
      const cm = findObject(objects, 'ConfigMap', String(from.configMapKeyRef.name));
      const data = (cm?.data as Record<string, string> | undefined) ?? {};
      const key = String(from.configMapKeyRef.key);
      env.set(
        e.name,
        key in data ? { value: data[key] } : { unresolved: `ConfigMap key ${from.configMapKeyRef.name}/${key} is not in the render` },
      );
    } else env.set(e.name, { unresolved: 'valueFrom other than secretKeyRef or configMapKeyRef' });
  }
  return env;
}

const UNITS: Record<string, number> = { m: 1e-3, k: 1e3, M: 1e6, G: 1e9, Ki: 1024, Mi: 1024 ** 2, Gi: 1024 ** 3 };

/** A resource quantity ("500m", "1", "384Mi") as a number, or NaN when it is not one. */
export function parseQuantity(q: string | number): number {
  const m = /^(\d+(?:\.\d+)?)(m|k|M|G|Ki|Mi|Gi)?$/.exec(String(q));
  return m ? Number(m[1]) * (m[2] ? UNITS[m[2]] : 1) : NaN;
}
