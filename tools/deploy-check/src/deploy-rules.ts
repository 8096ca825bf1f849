import { AppEnv } from './app-env';
import { K8sObject } from './k8s-object';
import { Container, containerEnv, findObject, parseQuantity, podTemplate, Probe } from './workload';

/** What the rules know of one app: how it is probed and which variables it cannot run without. */
export interface AppSpec {
  name: string;
  /** What apps/<name>/src/config.ts reads. */
  env: AppEnv;
  /** The variable holding the port it serves on. */
  portVar: string;
  /** grpc: grpc.health.v1 on portVar; edge: /readyz and /healthz on EDGE_ADMIN_PORT; http: /healthz on portVar. */
  health: 'grpc' | 'edge' | 'http';
  required: string[];
  /** Scaled by a HorizontalPodAutoscaler (and so without spec.replicas). */
  autoscaled: boolean;
  /** Variables that must be set when the app runs more than one replica. */
  sharedStateVars?: string[];
}

/** Everything wrong with one app's objects in a rendered overlay; empty when all is well. */
export function appProblems(objects: K8sObject[], app: AppSpec, secretKeys: Set<string>): string[] {
  const deployment = findObject(objects, 'Deployment', app.name);
  if (!deployment) return [`${app.name}: no single Deployment named ${app.name}`];
  const problems: string[] = [];
  const say = (what: string) => problems.push(`${app.name}: ${what}`);
  const { labels, spec } = podTemplate(deployment);
  const container = spec.containers.find((c) => c.name === app.name);
  if (!container || spec.containers.length !== 1) return [`${app.name}: the pod should hold one container named ${app.name}`];

  if (spec.securityContext?.runAsNonRoot !== true && container.securityContext?.runAsNonRoot !== true) say('runAsNonRoot is not true');
  if (spec.securityContext?.runAsUser === 0 || container.securityContext?.runAsUser === 0) say('runs as uid 0');
  if (container.securityContext?.readOnlyRootFilesystem !== true) say('readOnlyRootFilesystem is not true');
  if (container.securityContext?.allowPrivilegeEscalation !== false) say('allowPrivilegeEscalation is not false');
  const drop = (container.securityContext?.capabilities as { drop?: string[] } | undefined)?.drop ?? [];
  if (!drop.includes('ALL')) say('capabilities do not drop ALL');
  if (spec.automountServiceAccountToken !== false) say('automountServiceAccountToken is not false');
  // Service links would set e.g. EDGE_PORT=tcp://10.0.0.1:8080, which the edge reads as its port.
  if (spec.enableServiceLinks !== false) say('enableServiceLinks is not false');

  for (const resource of ['cpu', 'memory']) {
    const request = container.resources?.requests?.[resource];
    const limit = container.resources?.limits?.[resource];
    if (request === undefined || limit === undefined) say(`${resource} request and limit must both be set`);
    else if (!(parseQuantity(request) <= parseQuantity(limit))) say(`${resource} request ${request} is above its limit ${limit}`);
  }

  const env = containerEnv(container, objects);
  for (const [name, source] of env) {
    if ('unresolved' in source) say(`${name}: ${source.unresolved}`);
    else if (!app.env.names.has(name)) say(`sets ${name}, which apps/${app.name}/src/config.ts does not read`);
    if ('secret' in source && (source.secret !== 'gateway-secrets' || !secretKeys.has(source.key))) {
      say(`${name} comes from ${source.secret}/${source.key}, which is not a key of gateway-secrets`);
    }
  }
  for (const name of app.required) if (!env.has(name)) say(`${name} is not set`);
  const valueOf = (name: string): string | undefined => {
    const source = env.get(name);
    return source && 'value' in source ? source.value : undefined;
  };
  const intOf = (name: string): number | undefined => {
    const raw = valueOf(name);
    return raw === undefined ? app.env.intDefaults.get(name) : /^\d+$/.test(raw) ? Number(raw) : NaN;
  };

  // <PEER>_ADDR is host:port of a peer, which must be a Service of the render serving that port.
  for (const [name] of env) {
    if (!name.endsWith('_ADDR')) continue;
    const [host, peerPort] = (valueOf(name) ?? '').split(':');
    const ports = ((findObject(objects, 'Service', host)?.spec as { ports?: { port: number }[] } | undefined)?.ports ?? []).map((p) => String(p.port));
    if (!ports.includes(peerPort)) say(`${name}=${valueOf(name)} is not a Service port of the render`);
  }

  const port = intOf(app.portVar);
  const portNames = new Map((container.ports ?? []).map((p) => [p.name, p.containerPort]));
  const declared = new Set(portNames.values());
  if (port === undefined || !declared.has(port)) say(`${app.portVar}=${port} is not a containerPort`);
  const probePort = (probe: Probe | undefined): number | undefined => {
    const p = probe?.grpc?.port ?? probe?.httpGet?.port;
    return typeof p === 'string' ? portNames.get(p) : p;
  };
  const expectProbe = (kind: string, probe: Probe | undefined, want: { grpc?: true; path?: string; port?: number }) => {
    if (!probe) return say(`no ${kind}`);
    if (want.grpc && !probe.grpc) say(`${kind} is not a gRPC probe (grpc.health.v1)`);
    if (want.path && probe.httpGet?.path !== want.path) say(`${kind} does not GET ${want.path}`);
    if (probePort(probe) !== want.port) say(`${kind} probes port ${probePort(probe)}, the app serves it on ${want.port}`);
  };
  if (app.health === 'grpc') {
    expectProbe('readinessProbe', container.readinessProbe, { grpc: true, port });
    expectProbe('livenessProbe', container.livenessProbe, { grpc: true, port });
  } else if (app.health === 'edge') {
    const admin = intOf('EDGE_ADMIN_PORT');
    if (admin === undefined || !declared.has(admin)) say(`EDGE_ADMIN_PORT=${admin} is not a containerPort`);
    expectProbe('readinessProbe', container.readinessProbe, { path: '/readyz', port: admin });
    expectProbe('livenessProbe', container.livenessProbe, { path: '/healthz', port: admin });
  } else {
    expectProbe('readinessProbe', container.readinessProbe, { path: '/healthz', port });
    expectProbe('livenessProbe', container.livenessProbe, { path: '/healthz', port });
  }

  const drainMs = intOf('SHUTDOWN_GRACE_MS');
  const preStop = container.lifecycle?.preStop?.sleep?.seconds ?? 0;
  const grace = spec.terminationGracePeriodSeconds ?? 30;
  if (drainMs === undefined || Number.isNaN(drainMs)) say('SHUTDOWN_GRACE_MS is neither set nor defaulted in config.ts');
  else if (!(grace > preStop + drainMs / 1000)) say(`terminationGracePeriodSeconds ${grace} is not above preStop ${preStop} s + SHUTDOWN_GRACE_MS ${drainMs / 1000} s`);

  problems.push(...companionProblems(objects, app, deployment, labels, container).map((p) => `${app.name}: ${p}`));
  const replicas = (deployment.spec as { replicas?: number } | undefined)?.replicas;
  const hpa = findObject(objects, 'HorizontalPodAutoscaler', app.name);
  const most = Math.max(replicas ?? 1, (hpa?.spec as { maxReplicas?: number } | undefined)?.maxReplicas ?? 1);
  for (const name of app.sharedStateVars ?? []) if (most > 1 && !env.has(name)) say(`runs up to ${most} replicas without ${name}`);
  return problems;
}

/** The Service, PodDisruptionBudget and (when autoscaled) HorizontalPodAutoscaler of an app. */
function companionProblems(objects: K8sObject[], app: AppSpec, deployment: K8sObject, labels: Record<string, string>, container: Container): string[] {
  const problems: string[] = [];
  const selects = (selector: Record<string, string> | undefined) => !!selector && Object.keys(selector).length > 0 && Object.entries(selector).every(([k, v]) => labels[k] === v);
  const service = findObject(objects, 'Service', app.name);
  const serviceSpec = service?.spec as { selector?: Record<string, string>; ports?: { port: number; targetPort?: number | string }[] } | undefined;
  if (!service || !serviceSpec) problems.push('no Service');
  else {
    if (!selects(serviceSpec.selector)) problems.push('the Service selects no pod of the Deployment');
    for (const p of serviceSpec.ports ?? []) {
      const target = p.targetPort ?? p.port;
      const ok = (container.ports ?? []).some((c) => c.name === target || c.containerPort === target);
      if (!ok) problems.push(`Service port ${p.port} targets ${target}, which the container does not declare`);
    }
  }
  const pdb = findObject(objects, 'PodDisruptionBudget', app.name);
  const pdbSpec = pdb?.spec as { selector?: { matchLabels?: Record<string, string> }; maxUnavailable?: number | string; minAvailable?: number | string } | undefined;
  if (!pdbSpec) problems.push('no PodDisruptionBudget');
  else {
    if (!selects(pdbSpec.selector?.matchLabels)) problems.push('the PodDisruptionBudget selects no pod of the Deployment');
    if (pdbSpec.maxUnavailable === undefined || pdbSpec.maxUnavailable === 0) problems.push('the PodDisruptionBudget should allow one pod down (maxUnavailable), or drains never finish');
  }
  const hpa = findObject(objects, 'HorizontalPodAutoscaler', app.name);
  const hpaSpec = hpa?.spec as { scaleTargetRef?: { kind?: string; name?: string }; minReplicas?: number; maxReplicas?: number } | undefined;
  const replicas = (deployment.spec as { replicas?: number }).replicas;
  if (app.autoscaled) {
    if (!hpaSpec) problems.push('no HorizontalPodAutoscaler');
    else if (hpaSpec.scaleTargetRef?.kind !== 'Deployment' || hpaSpec.scaleTargetRef.name !== app.name) problems.push('the HorizontalPodAutoscaler does not scale its Deployment');
    // With both, every apply would reset the count the autoscaler chose.
    if (replicas !== undefined) problems.push('spec.replicas is set although a HorizontalPodAutoscaler owns the count');
  } else if (hpa) problems.push('has a HorizontalPodAutoscaler although it is not meant to autoscale');
  for (const obj of [deployment, service, pdb, hpa]) {
    if (obj && obj.metadata.labels?.['app.kubernetes.io/name'] !== app.name) problems.push(`${obj.kind} lacks the label app.kubernetes.io/name=${app.name}`);
  }
  return problems;
}
