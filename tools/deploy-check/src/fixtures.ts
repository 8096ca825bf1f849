import { K8sObject } from './k8s-object';

/** A Deployment that passes every rule for an app "demo" serving gRPC on DEMO_PORT 7000. */
export function demoDeployment(): K8sObject {
  const labels = { 'app.kubernetes.io/name': 'demo' };
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'demo', labels },
    spec: {
      replicas: 2,
      selector: { matchLabels: labels },
      template: {
        metadata: { labels },
        spec: {
          automountServiceAccountToken: false,
          enableServiceLinks: false,
          terminationGracePeriodSeconds: 30,
          securityContext: { runAsNonRoot: true, runAsUser: 65532 },
          containers: [
            {
              name: 'demo',
              image: 'chat-gateway/demo:1.0.0',
              ports: [{ name: 'grpc', containerPort: 7000 }],
              env: [
                { name: 'DEMO_PORT', value: '7000' },
                { name: 'DATABASE_URL', valueFrom: { secretKeyRef: { name: 'gateway-secrets', key: 'DATABASE_URL' } } },
              ],
              envFrom: [{ configMapRef: { name: 'demo-config' } }],
              readinessProbe: { grpc: { port: 7000 } },
              livenessProbe: { grpc: { port: 7000 } },
              lifecycle: { preStop: { sleep: { seconds: 5 } } },
              resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { cpu: '1', memory: '256Mi' } },
              securityContext: { readOnlyRootFilesystem: true, allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } },
            },
          ],
        },
      },
    },
  };
}

/** The ConfigMap, Service and PodDisruptionBudget that go with demoDeployment. */
export function demoCompanions(): K8sObject[] {
  const labels = { 'app.kubernetes.io/name': 'demo' };
  return [
    { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'demo-config', labels }, data: { LOG_LEVEL: 'info' } },
    { apiVersion: 'v1', kind: 'Service', metadata: { name: 'demo', labels }, spec: { selector: labels, ports: [{ port: 7000, targetPort: 'grpc' }] } },
    { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'demo', labels }, spec: { maxUnavailable: 1, selector: { matchLabels: labels } } },
  ];
}
