/** A Kubernetes object as read from YAML: only the type meta and the name are known. */
export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; [key: string]: unknown };
  [key: string]: unknown;
}

/** A plain JSON/YAML mapping. */
export type Mapping = Record<string, unknown>;

/** True for a mapping (not an array, not null). */
export function isMapping(value: unknown): value is Mapping {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The value as a K8sObject, or an error naming `where` when it lacks apiVersion, kind or metadata.name. */
export function asK8sObject(value: unknown, where: string): K8sObject {
  if (!isMapping(value)) throw new Error(`${where}: a document is not a mapping`);
  const metadata = value.metadata;
  if (typeof value.apiVersion !== 'string' || typeof value.kind !== 'string' || !isMapping(metadata) || typeof metadata.name !== 'string') {
    throw new Error(`${where}: every object needs apiVersion, kind and metadata.name`);
  }
  return value as K8sObject;
}

/** "Kind/name" (with the namespace when set), for messages. */
export function describe(obj: K8sObject): string {
  const ns = obj.metadata.namespace ? `${obj.metadata.namespace}/` : '';
  return `${obj.kind}/${ns}${obj.metadata.name}`;
}

/** What kustomize treats as the identity of an object: two with the same id may not coexist. */
export function objectId(obj: K8sObject): string {
  return `${obj.apiVersion} ${obj.kind} ${obj.metadata.namespace ?? ''} ${obj.metadata.name}`;
}
