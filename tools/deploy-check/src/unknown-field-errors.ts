import { join } from 'node:path';
import * as ts from 'typescript';
import { describe, K8sObject } from './k8s-object';

/** The TypeScript interface kubernetes-models (and @kubernetes-models/cert-manager, /prometheus-operator) generates for each apiVersion and kind. */
const TYPES: Record<string, { from: string; type: string }> = {
  'apps/v1 Deployment': { from: 'kubernetes-models/apps/v1/Deployment', type: 'IDeployment' },
  'autoscaling/v2 HorizontalPodAutoscaler': {
    from: 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler',
    type: 'IHorizontalPodAutoscaler',
  },
  'cert-manager.io/v1 Certificate': { from: '@kubernetes-models/cert-manager/cert-manager.io/v1/Certificate', type: 'ICertificate' },
  'cert-manager.io/v1 Issuer': { from: '@kubernetes-models/cert-manager/cert-manager.io/v1/Issuer', type: 'IIssuer' },
  'monitoring.coreos.com/v1 PodMonitor': {
    from: '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/PodMonitor',
    type: 'IPodMonitor',
  },
  'monitoring.coreos.com/v1 PrometheusRule': {
    from: '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/PrometheusRule',
    type: 'IPrometheusRule',
  },
  'networking.k8s.io/v1 NetworkPolicy': { from: 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy', type: 'INetworkPolicy' },
  'policy/v1 PodDisruptionBudget': { from: 'kubernetes-models/policy/v1/PodDisruptionBudget', type: 'IPodDisruptionBudget' },
  'v1 ConfigMap': { from: 'kubernetes-models/v1/ConfigMap', type: 'IConfigMap' },
  'v1 Namespace': { from: 'kubernetes-models/v1/Namespace', type: 'INamespace' },
  'v1 Secret': { from: 'kubernetes-models/v1/Secret', type: 'ISecret' },
  'v1 Service': { from: 'kubernetes-models/v1/Service', type: 'IService' },
};

// Never written to disk: served to the compiler from memory, beside this file so that
// node_modules resolve as they do for the rest of the repository.
const VIRTUAL_FILE = join(__dirname, '__rendered-objects__.ts');

/**
 * Fields the Kubernetes API does not define, which the JSON schemas let through (they allow
 * additional properties) but `kubectl apply` refuses (strict field validation). Each object is
 * type-checked as an object literal against the interface generated from the same OpenAPI spec,
 * so TypeScript's excess-property check names the unknown field. One compile for all objects.
 */
export function unknownFieldErrors(objects: K8sObject[]): string[] {
  const errors: string[] = [];
  // Line n of the source checks lines[n]; the import lines check nothing.
  const lines: (K8sObject | undefined)[] = [];
  const source: string[] = [];
  const alias = new Map<string, string>();
  for (const [key, { from, type }] of Object.entries(TYPES)) {
    alias.set(key, `T${alias.size}`);
    source.push(`import type { ${type} as ${alias.get(key)} } from '${from}';`);
    lines.push(undefined);
  }
  objects.forEach((obj, i) => {
    const type = alias.get(`${obj.apiVersion} ${obj.kind}`);
    if (!type) errors.push(`${describe(obj)}: no type for ${obj.apiVersion} ${obj.kind}`);
    else {
      source.push(`export const object${i}: ${type} = ${JSON.stringify(obj)};`);
      lines.push(obj);
    }
  });
  const text = source.join('\n');

  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    types: [],
    lib: ['lib.es2022.d.ts'],
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.CommonJS,
    moduleResolution: ts.ModuleResolutionKind.Node10,
  };
  const host = ts.createCompilerHost(options);
  const readFile = host.getSourceFile.bind(host);
  const fileExists = host.fileExists.bind(host);
  host.getSourceFile = (name, version, ...rest) =>
    name === VIRTUAL_FILE ? ts.createSourceFile(name, text, version) : readFile(name, version, ...rest);
  host.fileExists = (name) => name === VIRTUAL_FILE || fileExists(name);
  const program = ts.createProgram([VIRTUAL_FILE], options, host);

  for (const d of ts.getPreEmitDiagnostics(program)) {
    const message = ts.flattenDiagnosticMessageText(d.messageText, ' ');
    const line = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start).line : -1;
    const obj = d.file?.fileName === VIRTUAL_FILE ? lines[line] : undefined;
    errors.push(obj ? `${describe(obj)}: ${message}` : message);
  }
  return errors;
}
