import { existsSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import { asK8sObject, describe, isMapping, K8sObject, Mapping, objectId } from './k8s-object';

/**
 * `kubectl kustomize` for the subset of kustomize that k8s/ uses, so that CI can render the
 * tree without kubectl. Anything outside the subset is refused, never ignored, so the render
 * cannot silently differ from kubectl's. Supported: `resources` (files and folders holding a
 * kustomization.yaml), `namespace`, `images` (name, newName, newTag, digest) and `patches`
 * given inline or by path as strategic-merge patches of mappings only (no target; no lists, but
 * for a list of scalars in a custom resource, which replaces the list as kustomize does).
 * Stricter than kustomize on purpose: an `images` entry that changes no container is an error.
 */
export function kustomizeBuild(dir: string): K8sObject[] {
  const file = join(dir, 'kustomization.yaml');
  if (!existsSync(file)) throw new Error(`${dir}: no kustomization.yaml`);
  const k = readKustomization(file);

  const objects: K8sObject[] = [];
  const ids = new Set<string>();
  for (const entry of list(k.resources, 'resources', file)) {
    if (typeof entry !== 'string') throw new Error(`${file}: resources entries must be paths`);
    const path = resolve(dir, entry);
    if (!existsSync(path)) throw new Error(`${file}: resource ${entry} does not exist`);
    for (const obj of statSync(path).isDirectory() ? kustomizeBuild(path) : readManifests(path)) {
      const id = objectId(obj);
      if (ids.has(id)) throw new Error(`${file}: ${describe(obj)} is defined twice`);
      ids.add(id);
      objects.push(obj);
    }
  }
  for (const entry of list(k.patches, 'patches', file)) applyPatch(objects, readPatch(entry, dir, file), file);
  if (k.namespace !== undefined) {
    if (typeof k.namespace !== 'string') throw new Error(`${file}: namespace must be a string`);
    for (const obj of objects) setNamespace(obj, k.namespace);
  }
  for (const entry of list(k.images, 'images', file)) applyImage(objects, entry, file);
  return objects;
}

/** Every object of a YAML file of one or more documents (empty documents skipped). */
export function readManifests(file: string): K8sObject[] {
  // Kubernetes reads YAML 1.1 (unquoted yes/on are booleans there), so read it the same way.
  const docs = parseAllDocuments(readFileSync(file, 'utf8'), { version: '1.1' });
  if (!Array.isArray(docs)) throw new Error(`${file}: not a YAML stream`);
  return docs.flatMap((doc) => {
    if (doc.errors.length) throw new Error(`${file}: ${doc.errors[0].message}`);
    const value: unknown = doc.toJS();
    return value === null || value === undefined ? [] : [asK8sObject(value, file)];
  });
}

const FIELDS = new Set(['apiVersion', 'kind', 'resources', 'namespace', 'images', 'patches']);

function readKustomization(file: string): Mapping {
  const k: unknown = parse(readFileSync(file, 'utf8'), { version: '1.1' });
  if (!isMapping(k) || k.apiVersion !== 'kustomize.config.k8s.io/v1beta1' || k.kind !== 'Kustomization') {
    throw new Error(`${file}: not a kustomize.config.k8s.io/v1beta1 Kustomization`);
  }
  const unsupported = Object.keys(k).filter((key) => !FIELDS.has(key));
  if (unsupported.length) throw new Error(`${file}: not supported by this renderer: ${unsupported.join(', ')}`);
  return k;
}

function list(value: unknown, field: string, file: string): unknown[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new Error(`${file}: ${field} must be a list`);
  return value;
}

function readPatch(entry: unknown, dir: string, file: string): Mapping {
  if (!isMapping(entry)) throw new Error(`${file}: a patches entry must be a mapping`);
  const extra = Object.keys(entry).filter((key) => key !== 'patch' && key !== 'path');
  if (extra.length) throw new Error(`${file}: patches entries support only patch or path, not ${extra.join(', ')}`);
  const text =
    typeof entry.patch === 'string'
      ? entry.patch
      : typeof entry.path === 'string'
        ? readFileSync(resolve(dir, entry.path), 'utf8')
        : undefined;
  if (text === undefined) throw new Error(`${file}: a patches entry needs patch or path`);
  const docs = parseAllDocuments(text, { version: '1.1' });
  if (!Array.isArray(docs) || docs.length !== 1) throw new Error(`${file}: a patch must be exactly one YAML document`);
  return asK8sObject(docs[0].toJS(), `${file} (patch)`);
}

/**
 * API groups of custom resources. kustomize knows no merge keys for them (no OpenAPI schema), so
 * a list of scalars in their patch replaces the list whole; lists of mappings it would merge by
 * keys such as `name`, which this renderer does not do.
 */
const CUSTOM_GROUPS = new Set(['cert-manager.io']);

function applyPatch(objects: K8sObject[], patch: Mapping, file: string): void {
  const p = patch as K8sObject;
  const targets = objects.filter(
    (o) =>
      o.apiVersion === p.apiVersion &&
      o.kind === p.kind &&
      o.metadata.name === p.metadata.name &&
      (!p.metadata.namespace || o.metadata.namespace === p.metadata.namespace),
  );
  if (targets.length !== 1) throw new Error(`${file}: the patch of ${describe(p)} matches ${targets.length} objects, not 1`);
  const custom = CUSTOM_GROUPS.has(p.apiVersion.split('/')[0]);
  mergeMapping(targets[0], patch, `${file}: patch of ${describe(p)}`, custom);
}

/**
 * Strategic merge of mappings: keys merge deeply, null deletes. Lists would need merge keys: refused,
 * except a list of scalars in a custom resource (`scalarListsReplace`), which replaces the target's.
 */
function mergeMapping(target: Mapping, patch: Mapping, where: string, scalarListsReplace: boolean): void {
  for (const [key, value] of Object.entries(patch)) {
    if (key.startsWith('$')) throw new Error(`${where}: directive ${key} is not supported`);
    if (Array.isArray(value)) {
      if (!scalarListsReplace || value.some((v) => typeof v === 'object' && v !== null))
        throw new Error(`${where}: lists (${key}) are not supported in patches`);
      target[key] = [...value];
    } else if (value === null) delete target[key];
    else if (isMapping(value) && isMapping(target[key])) mergeMapping(target[key] as Mapping, value, where, scalarListsReplace);
    else if (isMapping(value)) {
      target[key] = {};
      mergeMapping(target[key] as Mapping, value, where, scalarListsReplace);
    } else target[key] = value;
  }
}

/** Kinds this renderer knows the scope of; kustomize renames a Namespace object to the namespace. */
const NAMESPACED = new Set([
  'ConfigMap',
  'Secret',
  'Service',
  'Deployment',
  'PodDisruptionBudget',
  'HorizontalPodAutoscaler',
  'ServiceAccount',
  'NetworkPolicy',
  'Certificate',
  'Issuer',
  'PodMonitor',
  'PrometheusRule',
]);

function setNamespace(obj: K8sObject, namespace: string): void {
  if (obj.kind === 'Namespace') obj.metadata.name = namespace;
  else if (NAMESPACED.has(obj.kind)) obj.metadata.namespace = namespace;
  else throw new Error(`${describe(obj)}: this renderer does not know whether ${obj.kind} is namespaced`);
}

function applyImage(objects: K8sObject[], entry: unknown, file: string): void {
  if (!isMapping(entry) || typeof entry.name !== 'string') throw new Error(`${file}: an images entry needs a name`);
  const extra = Object.keys(entry).filter((key) => !['name', 'newName', 'newTag', 'digest'].includes(key));
  if (extra.length) throw new Error(`${file}: images entries support name, newName, newTag, digest, not ${extra.join(', ')}`);
  for (const key of ['newName', 'newTag', 'digest']) {
    if (entry[key] !== undefined && typeof entry[key] !== 'string')
      throw new Error(`${file}: images ${entry.name}: ${key} must be a string (quote it)`);
  }
  const { name, newName, newTag, digest } = entry as { name: string; newName?: string; newTag?: string; digest?: string };
  let changed = 0;
  for (const container of podContainers(objects)) {
    const ref = splitImage(String(container.image));
    if (ref.name !== name) continue;
    const suffix = digest ? `@${digest}` : newTag ? `:${newTag}` : ref.suffix;
    container.image = `${newName ?? ref.name}${suffix}`;
    changed++;
  }
  if (!changed) throw new Error(`${file}: images entry ${name} matches no container`);
}

function podContainers(objects: K8sObject[]): Mapping[] {
  return objects.flatMap((obj) => {
    const template = isMapping(obj.spec) && isMapping(obj.spec.template) ? obj.spec.template : undefined;
    const spec = template && isMapping(template.spec) ? template.spec : undefined;
    if (!spec) return [];
    return [spec.containers, spec.initContainers].flatMap((c) => (Array.isArray(c) ? c.filter(isMapping) : []));
  });
}

/** "registry:5000/team/app:1.2@sha256:..." -> name "registry:5000/team/app", suffix ":1.2@sha256:...". */
export function splitImage(image: string): { name: string; suffix: string } {
  const at = image.indexOf('@');
  const beforeDigest = at === -1 ? image : image.slice(0, at);
  const colon = beforeDigest.lastIndexOf(':');
  const end = colon > beforeDigest.lastIndexOf('/') ? colon : at === -1 ? image.length : at;
  return { name: image.slice(0, end), suffix: image.slice(end) };
}
