import { defineSettings, GRPC_SECURITY_SETTINGS, setting } from '@gw/service-kit';
import { appEnvOf } from './app-env';
import { AppSpec, appProblems, parsePeerAddress } from './deploy-rules';
import { demoCompanions, demoDeployment } from './fixtures';
import { K8sObject } from './k8s-object';
import { podTemplate } from './workload';

const app: AppSpec = {
  name: 'demo',
  env: appEnvOf([
    defineSettings({
      DEMO_PORT: setting.int(7000, 'the gRPC service'),
      DEMO_METRICS_PORT: setting.int(7001, 'the admin port'),
      DATABASE_URL: setting.optional('the Postgres URL'),
      LOG_LEVEL: setting.string('info', 'the log level'),
      SHUTDOWN_GRACE_MS: setting.int(10_000, 'the drain time'),
    }),
    GRPC_SECURITY_SETTINGS,
  ]),
  portVar: 'DEMO_PORT',
  health: 'admin',
  adminPortVar: 'DEMO_METRICS_PORT',
  required: ['DATABASE_URL'],
  autoscaled: false,
  sharedStateVars: ['DATABASE_URL'],
  mtls: true,
  headless: true,
};
const secretKeys = new Set(['DATABASE_URL']);

/** The problems of the demo app after `change` edits its Deployment (and its companions). */
function problemsAfter(change: (container: Record<string, unknown>, pod: Record<string, unknown>, objects: K8sObject[]) => void): string[] {
  const deployment = demoDeployment();
  const objects = [deployment, ...demoCompanions()];
  const { spec } = podTemplate(deployment);
  change(spec.containers[0], spec, objects);
  return appProblems(objects, app, secretKeys);
}

describe('appProblems', () => {
  it('finds nothing wrong with a complete app', () => {
    expect(problemsAfter(() => undefined)).toEqual([]);
  });

  it('refuses a root file system that can be written, and a pod that may run as root', () => {
    expect(
      problemsAfter((c, pod) => {
        c.securityContext = {};
        pod.securityContext = {};
      }),
    ).toEqual([
      'demo: runAsNonRoot is not true',
      'demo: readOnlyRootFilesystem is not true',
      'demo: allowPrivilegeEscalation is not false',
      'demo: capabilities do not drop ALL',
    ]);
  });

  it('refuses a grace period the drain does not fit in', () => {
    expect(problemsAfter((_c, pod) => (pod.terminationGracePeriodSeconds = 15))).toEqual([
      'demo: terminationGracePeriodSeconds 15 is not above preStop 5 s + SHUTDOWN_GRACE_MS 10 s',
    ]);
  });

  it('refuses a variable config.ts does not read, and a missing required one', () => {
    expect(
      problemsAfter(
        (c) =>
          (c.env = [
            { name: 'DEMO_PORT', value: '7000' },
            { name: 'TLS_DIR', value: '/var/run/tls' },
            { name: 'DEMO_PROT', value: '1' },
          ]),
      ),
    ).toEqual([
      'demo: sets DEMO_PROT, which apps/demo/src/config.ts does not read',
      'demo: DATABASE_URL is not set',
      'demo: runs up to 2 replicas without DATABASE_URL',
    ]);
  });

  it('refuses probes on another port than the plain-HTTP admin port or path, and missing limits', () => {
    expect(
      problemsAfter((c) => {
        c.livenessProbe = { httpGet: { path: '/healthz', port: 7000 } };
        c.readinessProbe = { grpc: { port: 7000 } };
        c.resources = { requests: { cpu: '2', memory: '128Mi' }, limits: { cpu: '1' } };
      }),
    ).toEqual([
      'demo: cpu request 2 is above its limit 1',
      'demo: memory request and limit must both be set',
      'demo: readinessProbe does not GET /readyz',
      'demo: readinessProbe probes port 7000, the app serves it on 7001',
      'demo: livenessProbe probes port 7000, the app serves it on 7001',
    ]);
  });

  it('refuses an admin port the container does not declare', () => {
    expect(problemsAfter((c) => ((c.env as unknown[]).push({ name: 'DEMO_METRICS_PORT', value: '7002' }), undefined))).toEqual([
      'demo: DEMO_METRICS_PORT=7002 is not a containerPort',
      'demo: startupProbe probes port 7001, the app serves it on 7002',
      'demo: readinessProbe probes port 7001, the app serves it on 7002',
      'demo: livenessProbe probes port 7001, the app serves it on 7002',
    ]);
  });

  it('refuses a certificate mounted writable, through a subPath, or elsewhere than TLS_DIR, and GRPC_INSECURE', () => {
    expect(
      problemsAfter((c, _pod, objects) => {
        c.volumeMounts = [{ name: 'tls', mountPath: '/tls/tls.crt', subPath: 'tls.crt' }];
        objects[1].data = { LOG_LEVEL: 'info', GRPC_INSECURE: 'true' };
      }),
    ).toEqual([
      'demo: mounts demo-tls without readOnly: true',
      'demo: mounts demo-tls through a subPath, which never sees a renewed certificate',
      'demo: TLS_DIR=/var/run/tls is not /tls/tls.crt, where demo-tls is mounted',
      'demo: sets GRPC_INSECURE: plain-text gRPC is for experiments on loopback only',
    ]);
  });

  it('refuses a certificate Secret that no Certificate of the render produces, or that the pod does not mount', () => {
    expect(problemsAfter((_c, _pod, objects) => objects.splice(4, 1))).toEqual([
      'demo: no Certificate of the render produces the Secret demo-tls',
    ]);
    expect(
      problemsAfter((_c, pod) => ((pod.volumes = [{ name: 'tls', secret: { secretName: 'other-tls', optional: true } }]), undefined)),
    ).toEqual(['demo: mounts no volume of the Secret demo-tls']);
    expect(
      problemsAfter((_c, pod) => ((pod.volumes = [{ name: 'tls', secret: { secretName: 'demo-tls', optional: true } }]), undefined)),
    ).toEqual(['demo: the volume of demo-tls is optional: a pod would start without its certificate']);
  });

  it("refuses a Service that is not headless, that exposes the metrics port, or whose port is not the pods'", () => {
    const service = (objects: K8sObject[]) =>
      objects[2].spec as { clusterIP?: string; ports: { port: number; targetPort?: string | number }[] };
    expect(problemsAfter((_c, _pod, objects) => delete service(objects).clusterIP)).toEqual([
      'demo: the Service is not headless (clusterIP: None): its clients would see one address, not every pod',
    ]);
    expect(problemsAfter((_c, _pod, objects) => service(objects).ports.push({ port: 7001, targetPort: 'metrics' }))).toEqual([
      'demo: Service port 7001 exposes container port 7001, not the serving port DEMO_PORT=7000',
    ]);
    expect(problemsAfter((_c, _pod, objects) => (service(objects).ports[0].port = 443))).toEqual([
      'demo: headless Service port 443 differs from the container port 7000 its clients reach',
    ]);
  });

  it('refuses an app without a Service or PodDisruptionBudget, and a Secret key that is not in gateway-secrets', () => {
    expect(
      problemsAfter((c, _pod, objects) => {
        objects.splice(2, 2);
        c.env = [
          { name: 'DEMO_PORT', value: '7000' },
          { name: 'TLS_DIR', value: '/var/run/tls' },
          { name: 'DATABASE_URL', valueFrom: { secretKeyRef: { name: 'gateway-secrets', key: 'DB_URL' } } },
        ];
      }),
    ).toEqual([
      'demo: DATABASE_URL comes from gateway-secrets/DB_URL, which is not a key of gateway-secrets',
      'demo: no Service',
      'demo: no PodDisruptionBudget',
    ]);
  });

  it('accepts a peer address host:port or dns:///host:port of a Service port, and refuses any other', () => {
    app.env.names.add('PEER_ADDR');
    const withPeer = (value: string) => problemsAfter((c) => (c.env as unknown[]).push({ name: 'PEER_ADDR', value }));
    try {
      expect(withPeer('demo:7000')).toEqual([]);
      expect(withPeer('dns:///demo:7000')).toEqual([]);
      expect(withPeer('demo:7001')).toEqual(['demo: PEER_ADDR=demo:7001 is not a Service port of the render']);
      expect(withPeer('dns:///other:7000')).toEqual(['demo: PEER_ADDR=dns:///other:7000 is not a Service port of the render']);
      expect(withPeer('dns://10.0.0.10/demo:7000')).toEqual([
        'demo: PEER_ADDR=dns://10.0.0.10/demo:7000 is not a Service port of the render',
      ]);
    } finally {
      app.env.names.delete('PEER_ADDR');
    }
  });
});

describe('parsePeerAddress', () => {
  it.each([
    ['auth-service:50051', { host: 'auth-service', port: '50051' }],
    ['dns:///auth-service:50051', { host: 'auth-service', port: '50051' }],
    ['dns:auth-service:50051', undefined],
    ['auth-service', undefined],
    ['unix:///run/x.sock', undefined],
  ])('%s', (address, parsed) => {
    expect(parsePeerAddress(address)).toEqual(parsed);
  });
});
