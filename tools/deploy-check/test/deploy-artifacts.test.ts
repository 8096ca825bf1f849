import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { appEnv as env } from '../src/app-env';
import { certificateProblems } from '../src/certificate-rules';
import { composeErrors, readCompose } from '../src/compose-errors';
import { AppSpec, appProblems, parsePeerAddress } from '../src/deploy-rules';
import { describe as describeObject, K8sObject, objectId } from '../src/k8s-object';
import { kustomizeBuild, readManifests, splitImage } from '../src/kustomize-build';
import { defaultDenyProblems, Peer, reachableFrom } from '../src/network-policy';
import { schemaErrors } from '../src/schema-errors';
import { unknownFieldErrors } from '../src/unknown-field-errors';
import { containerEnv, findObject, podTemplate } from '../src/workload';

const ROOT = join(__dirname, '..', '..', '..');
const k8s = (path: string) => join(ROOT, 'k8s', path);
const GRACE = 'SHUTDOWN_GRACE_MS';

const APPS: AppSpec[] = [
  {
    name: 'edge',
    env: env('edge'),
    portVar: 'EDGE_PORT',
    health: 'admin',
    adminPortVar: 'EDGE_ADMIN_PORT',
    required: ['AUTH_ADDR', 'QUOTA_ADDR', 'BILLING_ADDR', 'PROVIDER_BASE_URL', 'PROVIDER_API_KEY', 'TLS_DIR', GRACE],
    autoscaled: true,
    mtls: true,
  },
  {
    name: 'auth-service',
    env: env('auth-service'),
    portVar: 'AUTH_PORT',
    health: 'admin',
    adminPortVar: 'AUTH_METRICS_PORT',
    required: ['DATABASE_URL', 'AUDIT_KEY', 'AUTH_METRICS_PORT', 'TLS_DIR', GRACE],
    autoscaled: false,
    mtls: true,
    headless: true,
  },
  {
    name: 'quota-service',
    env: env('quota-service'),
    portVar: 'QUOTA_PORT',
    health: 'admin',
    adminPortVar: 'QUOTA_METRICS_PORT',
    required: ['REDIS_URL', 'REDIS_CLUSTER_NODES', 'BILLING_ADDR', 'QUOTA_METRICS_PORT', 'TLS_DIR', GRACE],
    autoscaled: true,
    sharedStateVars: ['REDIS_URL'],
    mtls: true,
    headless: true,
  },
  {
    name: 'billing-service',
    env: env('billing-service'),
    portVar: 'BILLING_PORT',
    health: 'admin',
    adminPortVar: 'BILLING_METRICS_PORT',
    required: ['DATABASE_URL', 'AUDIT_KEY', 'BILLING_METRICS_PORT', 'TLS_DIR', GRACE],
    autoscaled: false,
    mtls: true,
    headless: true,
  },
  { name: 'provider-sim', env: env('provider-sim'), portVar: 'PROVIDER_SIM_PORT', health: 'http', required: [GRACE], autoscaled: false },
  {
    name: 'console',
    env: env('console'),
    portVar: 'CONSOLE_PORT',
    health: 'admin',
    adminPortVar: 'CONSOLE_METRICS_PORT',
    required: [
      'DATABASE_URL',
      'AUTH_ADDR',
      'BILLING_ADDR',
      'QUOTA_ADDR',
      'NOTIFIER_ADDR',
      'CONSOLE_GRPC_PORT',
      'CONSOLE_PUBLIC_URL',
      'TLS_DIR',
      GRACE,
    ],
    autoscaled: false,
    mtls: true,
  },
  {
    name: 'notifier',
    env: env('notifier'),
    portVar: 'NOTIFIER_PORT',
    health: 'admin',
    adminPortVar: 'NOTIFIER_METRICS_PORT',
    required: [
      'DATABASE_URL',
      'AUTH_ADDR',
      'BILLING_ADDR',
      'CONSOLE_ADDR',
      'SMTP_URL',
      'MAIL_FROM',
      'CONSOLE_PUBLIC_URL',
      'TLS_DIR',
      GRACE,
    ],
    autoscaled: false,
    mtls: true,
    headless: true,
  },
];
const PROD_APPS = APPS.filter((a) => a.name !== 'provider-sim');
/** The gRPC servers: their certificates carry the DNS names of their Service too. */
const SERVERS = ['auth-service', 'quota-service', 'billing-service'];

/**
 * Who may open a connection to which port of which app (docs/architecture.md#who-may-call-what), by the
 * names of PEERS below; every other peer must be refused by the NetworkPolicies.
 */
const REACHABLE: Record<string, Record<string, string[]>> = {
  edge: { http: ['ingress controller'], admin: ['monitoring'] },
  'auth-service': { grpc: ['console', 'ctl', 'edge', 'notifier'], metrics: ['monitoring'] },
  'quota-service': { grpc: ['chat product', 'console', 'ctl', 'edge'], metrics: ['monitoring'] },
  'billing-service': { grpc: ['console', 'ctl', 'edge', 'notifier', 'quota-service'], metrics: ['monitoring'] },
  'provider-sim': { http: ['edge'] },
  console: { http: ['ingress controller'], grpc: ['ctl', 'notifier'], metrics: ['monitoring'] },
  notifier: { grpc: ['console'], metrics: ['monitoring'] },
};
const NAME = 'app.kubernetes.io/name';
const namespaceNamed = (name: string) => ({ 'kubernetes.io/metadata.name': name });
/** Pods of the gateway's namespace, by app label, and pods of other namespaces, by the labels of those (the placeholders of the policies). */
const PEERS: Peer[] = [
  ...['edge', 'auth-service', 'quota-service', 'billing-service', 'provider-sim', 'ctl', 'console', 'notifier', 'another-pod'].map(
    (name) => ({
      name,
      podLabels: { [NAME]: name },
    }),
  ),
  { name: 'ingress controller', podLabels: { [NAME]: 'ingress-nginx' }, namespaceLabels: namespaceNamed('ingress-nginx') },
  { name: 'monitoring', podLabels: { [NAME]: 'prometheus' }, namespaceLabels: namespaceNamed('monitoring') },
  {
    name: 'chat product',
    podLabels: { [NAME]: 'chat' },
    namespaceLabels: { ...namespaceNamed('chat'), 'chat-gateway.example/quota-client': 'true' },
  },
  // Labelled like the gateway's own pods, in a namespace of no standing.
  { name: 'edge of another namespace', podLabels: { [NAME]: 'edge' }, namespaceLabels: namespaceNamed('elsewhere') },
  { name: 'ctl of another namespace', podLabels: { [NAME]: 'ctl' }, namespaceLabels: namespaceNamed('elsewhere') },
];

const secretTemplate = readManifests(k8s('base/secrets/gateway-secrets.yaml'))[0];
const SECRET_KEYS = new Set(Object.keys(secretTemplate.stringData as Record<string, string>));

const OVERLAYS: Record<string, { objects: K8sObject[]; namespace: string; apps: AppSpec[] }> = {
  prod: { objects: kustomizeBuild(k8s('overlays/prod')), namespace: 'chat-gateway', apps: PROD_APPS },
  dev: { objects: kustomizeBuild(k8s('overlays/dev')), namespace: 'chat-gateway-dev', apps: APPS },
};
const overlayNames = Object.keys(OVERLAYS);

/** The names of the variables the app's container gets in an overlay. */
function k8sEnvNames(objects: K8sObject[], app: string): string[] {
  const deployment = findObject(objects, 'Deployment', app);
  if (!deployment) return [];
  return [...containerEnv(podTemplate(deployment).spec.containers[0], objects).keys()].sort();
}

describe('settings tables', () => {
  it.each(APPS.map((a) => [a.name, a] as const))('finds the variables %s reads, with the default drain time', (_name, app) => {
    expect(app.env.names).toContain(app.portVar);
    expect(app.env.names).toContain('LOG_LEVEL');
    expect(app.env.intDefaults.get(GRACE)).toBeGreaterThan(0);
  });
});

describe.each(overlayNames)('k8s/overlays/%s', (overlay) => {
  const { objects, namespace, apps } = OVERLAYS[overlay];

  it('renders, and every object passes the Kubernetes schema of kubernetes-models', () => {
    expect(objects.length).toBeGreaterThan(15);
    expect(objects.flatMap(schemaErrors)).toEqual([]);
  });

  it('puts every object in its namespace', () => {
    const namespaces = objects.filter((o) => o.kind === 'Namespace').map((o) => o.metadata.name);
    expect(namespaces).toEqual([namespace]);
    expect(objects.filter((o) => o.kind !== 'Namespace' && o.metadata.namespace !== namespace).map(describeObject)).toEqual([]);
  });

  it('runs exactly its apps', () => {
    const deployments = objects.filter((o) => o.kind === 'Deployment').map((o) => o.metadata.name);
    expect(deployments.sort()).toEqual(apps.map((a) => a.name).sort());
  });

  it.each(apps.map((a) => [a.name, a] as const))(
    '%s: hardened, probed on its health checks, drains within its grace, reads only its own variables, mounts its certificate',
    (_name, app) => {
      expect(appProblems(objects, app, SECRET_KEYS)).toEqual([]);
    },
  );

  it("issues every identity from the namespace's own CA, with its SPIFFE ID, and the servers with their DNS names", () => {
    expect(certificateProblems(objects, SERVERS)).toEqual([]);
    const identities = objects.filter((o) => o.kind === 'Certificate' && !(o.spec as { isCA?: boolean }).isCA).map((o) => o.metadata.name);
    expect(identities.sort()).toEqual([
      'auth-service',
      'billing-service',
      'chat-product',
      'console',
      'ctl',
      'edge',
      'notifier',
      'quota-service',
    ]);
    expect(objects.filter((o) => o.kind === 'ClusterIssuer')).toEqual([]);
  });

  it('refuses all ingress by default, and lets each app be reached only by its callers, on their port', () => {
    expect(defaultDenyProblems(objects)).toEqual([]);
    for (const { name } of apps)
      expect({ name, reachable: reachableFrom(objects, name, PEERS) }).toEqual({ name, reachable: REACHABLE[name] });
  });

  it("exposes only the public API port through the edge's Service (the pages through the console's), and the gRPC port through each service's (headless)", () => {
    const ports = (name: string) =>
      (findObject(objects, 'Service', name)?.spec as { ports: { port: number; targetPort: string }[] }).ports.map(
        (p) => `${p.port}->${p.targetPort}`,
      );
    expect(ports('edge')).toEqual(['8080->http']);
    expect(ports('console')).toEqual(['8081->http']);
    expect({
      ports: ports('console-grpc'),
      clusterIP: (findObject(objects, 'Service', 'console-grpc')?.spec as { clusterIP?: string }).clusterIP,
    }).toEqual({ ports: ['50054->grpc'], clusterIP: 'None' });
    for (const [name, port] of [
      ['auth-service', 50051],
      ['quota-service', 50052],
      ['billing-service', 50053],
      ['notifier', 50055],
    ] as const) {
      expect({
        name,
        ports: ports(name),
        clusterIP: (findObject(objects, 'Service', name)?.spec as { clusterIP?: string }).clusterIP,
      }).toEqual({ name, ports: [`${port}->grpc`], clusterIP: 'None' });
    }
  });

  it('sends the edge to provider-sim in dev only', () => {
    const edge = containerEnv(podTemplate(findObject(objects, 'Deployment', 'edge') as K8sObject).spec.containers[0], objects);
    const source = edge.get('PROVIDER_BASE_URL');
    const provider = new URL(source && 'value' in source ? source.value : '');
    const servicePorts = (
      (findObject(objects, 'Service', provider.hostname)?.spec as { ports?: { port: number }[] } | undefined)?.ports ?? []
    ).map((p) => String(p.port));
    if (overlay === 'dev')
      expect({ host: provider.hostname, ports: servicePorts }).toEqual({ host: 'provider-sim', ports: [provider.port] });
    else
      expect({ host: provider.hostname, protocol: provider.protocol }).toEqual({
        host: expect.not.stringMatching(/provider-sim/),
        protocol: 'https:',
      });
  });

  it('reaches Postgres and Redis through the ExternalName Services the secret URLs name', () => {
    const { DATABASE_URL, REDIS_URL } = secretTemplate.stringData as Record<string, string>;
    for (const url of [DATABASE_URL, REDIS_URL]) {
      const service = findObject(objects, 'Service', new URL(url).hostname);
      expect((service?.spec as { type?: string } | undefined)?.type).toBe('ExternalName');
    }
  });
});

describe('k8s, between the overlays', () => {
  it('has no field the Kubernetes API does not define (kubectl refuses those)', () => {
    expect(unknownFieldErrors([...OVERLAYS.prod.objects, ...OVERLAYS.dev.objects])).toEqual([]);
  });

  it('gives each app the same variable names in prod as in dev', () => {
    for (const { name } of PROD_APPS)
      expect({ name, env: k8sEnvNames(OVERLAYS.prod.objects, name) }).toEqual({ name, env: k8sEnvNames(OVERLAYS.dev.objects, name) });
  });

  it('ships the placeholder Secret in dev only; prod expects gateway-secrets to exist', () => {
    expect(OVERLAYS.prod.objects.filter((o) => o.kind === 'Secret')).toEqual([]);
    expect(OVERLAYS.dev.objects.filter((o) => o.kind === 'Secret').map((o) => o.metadata.name)).toEqual(['gateway-secrets']);
  });

  it('prod: each app applies alone, with its own image tag, and the parts add up to the whole overlay', () => {
    const parts = ['shared', ...PROD_APPS.map((a) => a.name)].map((part) => ({
      part,
      objects: kustomizeBuild(k8s(`overlays/prod/${part}`)),
    }));
    const ids = (objects: K8sObject[]) => objects.map(objectId).sort();
    expect(ids(parts.flatMap((p) => p.objects))).toEqual(ids(OVERLAYS.prod.objects));
    for (const { part, objects } of parts.filter((p) => p.part !== 'shared')) {
      expect({ part, apps: [...new Set(objects.map((o) => o.metadata.labels?.['app.kubernetes.io/name']))] }).toEqual({
        part,
        apps: [part],
      });
      const images = parse(readFileSync(k8s(`overlays/prod/${part}/kustomization.yaml`), 'utf8')).images as {
        name: string;
        newTag?: string;
      }[];
      expect(images.map((i) => i.name)).toEqual([`chat-gateway/${part}`]);
      const image = podTemplate(findObject(objects, 'Deployment', part) as K8sObject).spec.containers[0].image as string;
      expect(splitImage(image)).toEqual({
        name: expect.stringMatching(new RegExp(`/chat-gateway/${part}$`)),
        suffix: `:${images[0].newTag}`,
      });
      expect(images[0].newTag).not.toBe('latest');
    }
  });
});

describe('docker-compose.yml', () => {
  const compose = readCompose(readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8'));
  const services = compose.services as Record<string, Record<string, unknown>>;
  const envOf = (name: string) => Object.keys((services[name]?.environment as Record<string, string> | undefined) ?? {}).sort();
  const seconds = (duration: unknown) =>
    [...String(duration).matchAll(/(\d+)(h|m|s)/g)].reduce(
      (sum, [, n, unit]) => sum + Number(n) * { h: 3600, m: 60, s: 1 }[unit as 'h' | 'm' | 's'],
      0,
    );

  it('passes the compose-spec schema', () => {
    expect(composeErrors(compose)).toEqual([]);
  });

  it('runs Postgres and Redis with their data on volumes, Redis with its append-only file', () => {
    expect(services.postgres.volumes).toEqual(['postgres-data:/var/lib/postgresql/data']);
    expect(services.redis.volumes).toEqual(['redis-data:/data']);
    expect((services.redis.command as string[]).join(' ')).toContain('--appendonly yes');
  });

  it.each(APPS.map((a) => [a.name, a] as const))(
    '%s: built from the Dockerfile, read-only, setting the variables its Deployment sets',
    (name, app) => {
      const service = services[name];
      expect(service.build).toEqual({ context: '.', args: { APP: name } });
      expect(service.read_only).toBe(true);
      expect(service.healthcheck).toBeDefined();
      const names = envOf(name);
      expect(names.filter((n) => !app.env.names.has(n))).toEqual([]);
      expect(names).toEqual(k8sEnvNames(OVERLAYS.dev.objects, name));
      const drainMs = Number((service.environment as Record<string, string>)[GRACE]);
      expect(seconds(service.stop_grace_period)).toBeGreaterThan(drainMs / 1000);
    },
  );

  it('starts provider-sim only with --profile sim and keeps every other app in the default profile', () => {
    expect(services['provider-sim'].profiles).toEqual(['sim']);
    for (const { name } of PROD_APPS) expect({ name, profiles: services[name].profiles }).toEqual({ name, profiles: undefined });
  });

  it('offers ctl with the variables ctl reads', () => {
    const ctl = env('ctl');
    expect(envOf('ctl').filter((n) => !ctl.names.has(n))).toEqual([]);
    expect(envOf('ctl')).toEqual(['AUTH_ADDR', 'BILLING_ADDR', 'CONSOLE_ADDR', 'QUOTA_ADDR', 'TLS_DIR']);
  });

  it("makes the certificates once, with ctl, into the volume tls (owned by the image's user, from the Dockerfile's /tls)", () => {
    const init = services['tls-init'];
    expect(init.build).toEqual({ context: '.', args: { APP: 'ctl' } });
    expect(init.command).toEqual(['tls', 'init', '--dir', '/tls']);
    expect(init.volumes).toEqual(['tls:/tls']);
    expect(init.restart).toBeUndefined();
    expect(init.profiles).toBeUndefined();
    expect(init.read_only).toBe(true);
    expect(readFileSync(join(ROOT, 'Dockerfile'), 'utf8')).toMatch(/^COPY --from=build --chown=65532:65532 \/tls \/tls$/m);
    expect(Object.keys(compose.volumes as object)).toContain('tls');
  });

  it.each(['edge', 'auth-service', 'quota-service', 'billing-service', 'ctl'])(
    '%s: waits for tls-init, reads its own certificate from the volume, read-only, never in plain text',
    (name) => {
      const service = services[name];
      expect((service.depends_on as Record<string, unknown>)['tls-init']).toEqual({ condition: 'service_completed_successfully' });
      expect(service.volumes).toEqual(['tls:/tls:ro']);
      expect((service.environment as Record<string, string>).TLS_DIR).toBe(`/tls/${name}`);
    },
  );

  it('sets GRPC_INSECURE nowhere, and reaches every peer by a service of the file (dns:/// resolves every replica)', () => {
    for (const [name, service] of Object.entries(services)) {
      const environment = (service.environment as Record<string, string> | undefined) ?? {};
      expect({ name, insecure: environment.GRPC_INSECURE }).toEqual({ name, insecure: undefined });
      for (const [key, value] of Object.entries(environment).filter(([k]) => k.endsWith('_ADDR'))) {
        const peer = parsePeerAddress(value);
        const peerEnv = (services[peer?.host ?? '']?.environment as Record<string, string> | undefined) ?? {};
        expect({ name, key, value, served: Object.values(peerEnv).includes(peer?.port ?? '') }).toEqual({
          name,
          key,
          value: expect.stringMatching(/^dns:\/\/\//),
          served: true,
        });
      }
    }
  });

  it.each(APPS.filter((a) => a.health === 'admin').map((a) => [a.name, a] as const))(
    '%s: its healthcheck GETs /readyz on its plain-HTTP admin port',
    (name, app) => {
      const service = services[name];
      const port = (service.environment as Record<string, string>)[app.adminPortVar as string];
      const test = (service.healthcheck as { test: string[] }).test;
      expect(test.slice(-1)).toEqual([port]);
      expect(test.join(' ')).toContain("fetch('http://127.0.0.1:'+process.argv[1]+'/readyz'");
    },
  );
});

describe('Dockerfile', () => {
  const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
  const stages = dockerfile.split(/^FROM /m).slice(1);

  it('builds in stages and runs the app as a numeric non-root user', () => {
    expect(stages.length).toBeGreaterThanOrEqual(3);
    const runtime = stages[stages.length - 1];
    const user = /^USER (\d+)(?::(\d+))?$/m.exec(runtime);
    expect(Number(user?.[1])).toBeGreaterThan(0);
    expect(runtime).not.toMatch(/^COPY (?!--from=)/m);
  });

  it('has a bundle for every app compose builds', () => {
    const services = readCompose(readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8')).services as Record<
      string,
      { build?: { args?: { APP?: string } } }
    >;
    const apps = Object.values(services).flatMap((s) => (s.build ? [String(s.build.args?.APP)] : []));
    expect(new Set(apps)).toEqual(new Set([...APPS.map((a) => a.name), 'ctl']));
    for (const app of apps) expect(() => readFileSync(join(ROOT, 'apps', app, 'src', 'main.ts'))).not.toThrow();
  });
});
