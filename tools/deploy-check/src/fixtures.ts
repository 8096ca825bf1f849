import { K8sObject } from './k8s-object';

/**
 * A Deployment that passes every rule for an app "demo" serving gRPC with mutual TLS on DEMO_PORT
 * 7000, probed over plain HTTP on DEMO_METRICS_PORT 7001, its certificate mounted from demo-tls.
 */
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
          securityContext: { runAsNonRoot: true, runAsUser: 65532, fsGroup: 65532 },
          containers: [
            {
              name: 'demo',
              image: 'chat-gateway/demo:1.0.0',
              ports: [
                { name: 'grpc', containerPort: 7000 },
                { name: 'metrics', containerPort: 7001 },
              ],
              env: [
                { name: 'DEMO_PORT', value: '7000' },
                { name: 'DEMO_METRICS_PORT', value: '7001' },
                { name: 'TLS_DIR', value: '/var/run/tls' },
                { name: 'DATABASE_URL', valueFrom: { secretKeyRef: { name: 'gateway-secrets', key: 'DATABASE_URL' } } },
              ],
              envFrom: [{ configMapRef: { name: 'demo-config' } }],
              startupProbe: { httpGet: { path: '/readyz', port: 'metrics' } },
              readinessProbe: { httpGet: { path: '/readyz', port: 'metrics' } },
              livenessProbe: { httpGet: { path: '/healthz', port: 'metrics' } },
              lifecycle: { preStop: { sleep: { seconds: 5 } } },
              resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { cpu: '1', memory: '256Mi' } },
              securityContext: { readOnlyRootFilesystem: true, allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } },
              volumeMounts: [{ name: 'tls', mountPath: '/var/run/tls', readOnly: true }],
            },
          ],
          volumes: [{ name: 'tls', secret: { secretName: 'demo-tls', defaultMode: 0o440 } }],
        },
      },
    },
  };
}

/** A Certificate of the identity `name`, issued by demo-ca into <name>-tls, that passes every rule. */
export function demoCertificate(name: string, namespace?: string, dnsNames?: string[]): K8sObject {
  return {
    apiVersion: 'cert-manager.io/v1',
    kind: 'Certificate',
    metadata: { name, labels: { 'app.kubernetes.io/name': name }, ...(namespace ? { namespace } : {}) },
    spec: {
      secretName: `${name}-tls`,
      commonName: name,
      uris: [`spiffe://chat-gateway/${name}`],
      ...(dnsNames ? { dnsNames } : {}),
      usages: ['digital signature', 'server auth', 'client auth'],
      duration: '2160h',
      renewBefore: '720h',
      privateKey: { algorithm: 'ECDSA', size: 256, rotationPolicy: 'Always' },
      issuerRef: { group: 'cert-manager.io', kind: 'Issuer', name: 'demo-ca' },
    },
  };
}

/** The ConfigMap, headless Service, PodDisruptionBudget and Certificate that go with demoDeployment. */
export function demoCompanions(): K8sObject[] {
  const labels = { 'app.kubernetes.io/name': 'demo' };
  return [
    { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'demo-config', labels }, data: { LOG_LEVEL: 'info' } },
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'demo', labels },
      spec: { clusterIP: 'None', selector: labels, ports: [{ port: 7000, targetPort: 'grpc' }] },
    },
    {
      apiVersion: 'policy/v1',
      kind: 'PodDisruptionBudget',
      metadata: { name: 'demo', labels },
      spec: { maxUnavailable: 1, selector: { matchLabels: labels } },
    },
    demoCertificate('demo'),
  ];
}

/** The self-signed Issuer, the CA Certificate and the CA Issuer demo-ca that issue the demo certificates. */
export function demoPki(): K8sObject[] {
  const issuerRef = { group: 'cert-manager.io', kind: 'Issuer', name: 'demo-selfsigned' };
  return [
    { apiVersion: 'cert-manager.io/v1', kind: 'Issuer', metadata: { name: 'demo-selfsigned' }, spec: { selfSigned: {} } },
    {
      apiVersion: 'cert-manager.io/v1',
      kind: 'Certificate',
      metadata: { name: 'demo-ca' },
      spec: {
        isCA: true,
        commonName: 'demo-ca',
        secretName: 'demo-ca',
        duration: '87600h',
        renewBefore: '720h',
        privateKey: { algorithm: 'ECDSA', size: 256, rotationPolicy: 'Never' },
        issuerRef,
      },
    },
    { apiVersion: 'cert-manager.io/v1', kind: 'Issuer', metadata: { name: 'demo-ca' }, spec: { ca: { secretName: 'demo-ca' } } },
  ];
}
