import { parseAppEnv } from './app-env';
import { AppSpec, appProblems } from './deploy-rules';
import { demoCompanions, demoDeployment } from './fixtures';
import { K8sObject } from './k8s-object';
import { podTemplate } from './workload';

const app: AppSpec = {
  name: 'demo',
  env: parseAppEnv(`readInt(env, 'DEMO_PORT', 7000); readOptional(env, 'DATABASE_URL'); readString(env, 'LOG_LEVEL', 'info'); readInt(env, 'SHUTDOWN_GRACE_MS', 10_000);`),
  portVar: 'DEMO_PORT',
  health: 'grpc',
  required: ['DATABASE_URL'],
  autoscaled: false,
  sharedStateVars: ['DATABASE_URL'],
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
    expect(problemsAfter((c) => (c.env = [{ name: 'DEMO_PORT', value: '7000' }, { name: 'DEMO_PROT', value: '1' }]))).toEqual([
      'demo: sets DEMO_PROT, which apps/demo/src/config.ts does not read',
      'demo: DATABASE_URL is not set',
      'demo: runs up to 2 replicas without DATABASE_URL',
    ]);
  });

  it('refuses probes on another port than the app serves, and missing limits', () => {
    expect(
      problemsAfter((c) => {
        c.livenessProbe = { grpc: { port: 7001 } };
        c.resources = { requests: { cpu: '2', memory: '128Mi' }, limits: { cpu: '1' } };
      }),
    ).toEqual(['demo: cpu request 2 is above its limit 1', 'demo: memory request and limit must both be set', 'demo: livenessProbe probes port 7001, the app serves it on 7000']);
  });

  it('refuses an app without a Service or PodDisruptionBudget, and a Secret key that is not in gateway-secrets', () => {
    expect(
      problemsAfter((c, _pod, objects) => {
        objects.splice(2, 2);
        c.env = [{ name: 'DEMO_PORT', value: '7000' }, { name: 'DATABASE_URL', valueFrom: { secretKeyRef: { name: 'gateway-secrets', key: 'DB_URL' } } }];
      }),
    ).toEqual(['demo: DATABASE_URL comes from gateway-secrets/DB_URL, which is not a key of gateway-secrets', 'demo: no Service', 'demo: no PodDisruptionBudget']);
  });

  it('refuses a peer address no Service of the render serves', () => {
    app.env.names.add('PEER_ADDR');
    try {
      expect(problemsAfter((c) => (c.env as unknown[]).push({ name: 'PEER_ADDR', value: 'demo:7001' }))).toEqual(['demo: PEER_ADDR=demo:7001 is not a Service port of the render']);
    } finally {
      app.env.names.delete('PEER_ADDR');
    }
  });
});
