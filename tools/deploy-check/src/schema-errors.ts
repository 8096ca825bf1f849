import { Certificate } from '@kubernetes-models/cert-manager/cert-manager.io/v1/Certificate';
import { Issuer } from '@kubernetes-models/cert-manager/cert-manager.io/v1/Issuer';
import { PodMonitor } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/PodMonitor';
import { PrometheusRule } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/PrometheusRule';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler';
import { NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { Namespace } from 'kubernetes-models/v1/Namespace';
import { Secret } from 'kubernetes-models/v1/Secret';
import { Service } from 'kubernetes-models/v1/Service';
import { describe, K8sObject } from './k8s-object';

interface Validatable {
  validate(): void;
}

/**
 * The models of kubernetes-models, whose validators are generated from the Kubernetes OpenAPI
 * spec (JSON schema, compiled with ajv): one per apiVersion and kind the manifests use. The
 * cert-manager kinds come from @kubernetes-models/cert-manager and the Prometheus Operator's from
 * @kubernetes-models/prometheus-operator, generated the same way from their CRDs. A kind not listed here is an error, so a new kind cannot slip in unchecked.
 */
const MODELS: Record<string, (data: K8sObject) => Validatable> = {
  'apps/v1 Deployment': (d) => new Deployment(d as unknown as ConstructorParameters<typeof Deployment>[0]),
  'autoscaling/v2 HorizontalPodAutoscaler': (d) =>
    new HorizontalPodAutoscaler(d as unknown as ConstructorParameters<typeof HorizontalPodAutoscaler>[0]),
  'cert-manager.io/v1 Certificate': (d) => new Certificate(d as unknown as ConstructorParameters<typeof Certificate>[0]),
  'cert-manager.io/v1 Issuer': (d) => new Issuer(d as unknown as ConstructorParameters<typeof Issuer>[0]),
  'monitoring.coreos.com/v1 PodMonitor': (d) => new PodMonitor(d as unknown as ConstructorParameters<typeof PodMonitor>[0]),
  'monitoring.coreos.com/v1 PrometheusRule': (d) => new PrometheusRule(d as unknown as ConstructorParameters<typeof PrometheusRule>[0]),
  'networking.k8s.io/v1 NetworkPolicy': (d) => new NetworkPolicy(d as unknown as ConstructorParameters<typeof NetworkPolicy>[0]),
  'policy/v1 PodDisruptionBudget': (d) => new PodDisruptionBudget(d as unknown as ConstructorParameters<typeof PodDisruptionBudget>[0]),
  'v1 ConfigMap': (d) => new ConfigMap(d as unknown as ConstructorParameters<typeof ConfigMap>[0]),
  'v1 Namespace': (d) => new Namespace(d as unknown as ConstructorParameters<typeof Namespace>[0]),
  'v1 Secret': (d) => new Secret(d as unknown as ConstructorParameters<typeof Secret>[0]),
  'v1 Service': (d) => new Service(d as unknown as ConstructorParameters<typeof Service>[0]),
};

/** The apiVersion/kind pairs that can be checked. */
export const CHECKED_KINDS = Object.keys(MODELS);

/** Schema errors of one object ("Kind/name: data/spec/... must be integer"); empty when valid. */
export function schemaErrors(obj: K8sObject): string[] {
  const model = MODELS[`${obj.apiVersion} ${obj.kind}`];
  if (!model) return [`${describe(obj)}: no schema for ${obj.apiVersion} ${obj.kind}`];
  try {
    model(obj).validate();
    return [];
  } catch (err) {
    return [`${describe(obj)}: ${(err as Error).message}`];
  }
}
