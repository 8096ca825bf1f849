import { AppEnv } from './app-env';
import { K8sObject } from './k8s-object';
import { Container, containerEnv, EnvSource, findObject, parseQuantity, PodSpec, podTemplate, Probe } from './workload';

/** What the rules know of one app: how it is probed and which variables it cannot run without. */
export interface AppSpec {
  name: string;
  /** What apps/<name>/src/config.ts reads: its settings tables (appEnv). */
  env: AppEnv;
  /** The variable holding the port it serves on: the only port its Service exposes. */
  portVar: string;
  /**
   * admin: GET /readyz (startup, readiness) and GET /healthz (liveness) on the plain-HTTP port of
   * `adminPortVar` (the edge's admin port, a service's metrics port); http: GET /healthz on portVar.
   */
  health: 'admin' | 'http';
  /** The variable holding the admin (metrics) port, for health 'admin'. */
  adminPortVar?: string;
  required: string[];
  /** Scaled by a HorizontalPodAutoscaler (and so without spec.replicas). */
  autoscaled: boolean;
  /** Variables that must be set when the app runs more than one replica. */
  sharedStateVars?: string[];
  /**
   * Speaks gRPC with mutual TLS: mounts, read-only, the Secret <name>-tls that a Certificate of the
   * render produces, sets TLS_DIR to where it is mounted, and never sets GRPC_INSECURE.
   */
  mtls?: boolean;
  /** Its Service is headless (clusterIP: None), so that its clients (dns:///) resolve every pod. */
  headless?: boolean;
}

/** The Service name and port of a peer address: `host:port` or gRPC's `dns:///host:port`. */
export function parsePeerAddress(address: string): { host: string; port: string } | undefined {
  const m = /^(?:dns:\/\/\/)?([a-z0-9]([-a-z0-9]*[a-z0-9])?):(\d+)$/.exec(address);
  return m ? { host: m[1], port: m[3] } : undefined;
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

  // <PEER>_ADDR is host:port or dns:///host:port of a peer, which must be a Service of the render serving that port.
  for (const [name] of env) {
    if (!name.endsWith('_ADDR')) continue;
    const peer = parsePeerAddress(valueOf(name) ?? '');
    const ports = ((peer && findObject(objects, 'Service', peer.host)?.spec) as { ports?: { port: number }[] } | undefined)?.ports ?? [];
    if (!peer || !ports.some((p) => String(p.port) === peer.port)) say(`${name}=${valueOf(name)} is not a Service port of the render`);
  }

  const port = intOf(app.portVar);
  const portNames = new Map((container.ports ?? []).map((p) => [p.name, p.containerPort]));
  const declared = new Set(portNames.values());
  if (port === undefined || !declared.has(port)) say(`${app.portVar}=${port} is not a containerPort`);
  const probePort = (probe: Probe | undefined): number | undefined => {
    const p = probe?.grpc?.port ?? probe?.httpGet?.port;
    return typeof p === 'string' ? portNames.get(p) : p;
  };
  const expectProbe = (kind: string, probe: Probe | undefined, want: { paths: string[]; port?: number }) => {
    if (!probe) return say(`no ${kind}`);
    if (!want.paths.includes(probe.httpGet?.path ?? '')) say(`${kind} does not GET ${want.paths.join(' or ')}`);
    if (probePort(probe) !== want.port) say(`${kind} probes port ${probePort(probe)}, the app serves it on ${want.port}`);
  };
  if (app.health === 'admin') {
    // The gRPC port speaks TLS only, which the kubelet's gRPC probe cannot: the probes use the plain-HTTP admin port.
    const adminVar = app.adminPortVar ?? '(adminPortVar)';
    const admin = intOf(adminVar);
    if (admin === undefined || !declared.has(admin)) say(`${adminVar}=${admin} is not a containerPort`);
    if (container.startupProbe) expectProbe('startupProbe', container.startupProbe, { paths: ['/readyz', '/healthz'], port: admin });
    expectProbe('readinessProbe', container.readinessProbe, { paths: ['/readyz'], port: admin });
    expectProbe('livenessProbe', container.livenessProbe, { paths: ['/healthz'], port: admin });
  } else {
    expectProbe('readinessProbe', container.readinessProbe, { paths: ['/healthz'], port });
    expectProbe('livenessProbe', container.livenessProbe, { paths: ['/healthz'], port });
  }
  if (app.mtls) for (const p of tlsProblems(objects, app, spec, container, env)) say(p);

  const drainMs = intOf('SHUTDOWN_GRACE_MS');
  const preStop = container.lifecycle?.preStop?.sleep?.seconds ?? 0;
  const grace = spec.terminationGracePeriodSeconds ?? 30;
  if (drainMs === undefined || Number.isNaN(drainMs)) say('SHUTDOWN_GRACE_MS is neither set nor defaulted in its settings table');
  else if (!(grace > preStop + drainMs / 1000))
    say(`terminationGracePeriodSeconds ${grace} is not above preStop ${preStop} s + SHUTDOWN_GRACE_MS ${drainMs / 1000} s`);

  problems.push(...companionProblems(objects, app, deployment, labels, container, port).map((p) => `${app.name}: ${p}`));
  const replicas = (deployment.spec as { replicas?: number } | undefined)?.replicas;
  const hpa = findObject(objects, 'HorizontalPodAutoscaler', app.name);
  const most = Math.max(replicas ?? 1, (hpa?.spec as { maxReplicas?: number } | undefined)?.maxReplicas ?? 1);
  for (const name of app.sharedStateVars ?? []) if (most > 1 && !env.has(name)) say(`runs up to ${most} replicas without ${name}`);
  return problems;
}

/**
 * The mutual-TLS set-up of an app's pod: the Secret <app>-tls of a Certificate of the render,
 * mounted read-only as a whole folder (a subPath mount never sees a renewal), TLS_DIR naming that
 * folder, and no GRPC_INSECURE.
 */
function tlsProblems(objects: K8sObject[], app: AppSpec, spec: PodSpec, container: Container, env: Map<string, EnvSource>): string[] {
  const problems: string[] = [];
  const secretName = `${app.name}-tls`;
  const certificate = objects.find(
    (o) =>
      o.apiVersion === 'cert-manager.io/v1' &&
      o.kind === 'Certificate' &&
      (o.spec as { secretName?: string } | undefined)?.secretName === secretName,
  );
  if (!certificate) problems.push(`no Certificate of the render produces the Secret ${secretName}`);
  const volume = (spec.volumes ?? []).find((v) => v.secret?.secretName === secretName);
  if (!volume) problems.push(`mounts no volume of the Secret ${secretName}`);
  else {
    if (volume.secret?.optional) problems.push(`the volume of ${secretName} is optional: a pod would start without its certificate`);
    const mounts = (container.volumeMounts ?? []).filter((m) => m.name === volume.name);
    if (mounts.length !== 1) problems.push(`mounts the volume of ${secretName} ${mounts.length} times, not once`);
    else {
      const [mount] = mounts;
      if (mount.readOnly !== true) problems.push(`mounts ${secretName} without readOnly: true`);
      if (mount.subPath || mount.subPathExpr)
        problems.push(`mounts ${secretName} through a subPath, which never sees a renewed certificate`);
      const dir = env.get('TLS_DIR');
      const value = dir && 'value' in dir ? dir.value : undefined;
      if (value !== mount.mountPath) problems.push(`TLS_DIR=${value} is not ${mount.mountPath}, where ${secretName} is mounted`);
    }
  }
  if (env.has('GRPC_INSECURE')) problems.push('sets GRPC_INSECURE: plain-text gRPC is for experiments on loopback only');
  return problems;
}

/** The Service, PodDisruptionBudget and (when autoscaled) HorizontalPodAutoscaler of an app. */
function companionProblems(
  objects: K8sObject[],
  app: AppSpec,
  deployment: K8sObject,
  labels: Record<string, string>,
  container: Container,
  port: number | undefined,
): string[] {
  const problems: string[] = [];
  const selects = (selector: Record<string, string> | undefined) =>
    !!selector && Object.keys(selector).length > 0 && Object.entries(selector).every(([k, v]) => labels[k] === v);
  const service = findObject(objects, 'Service', app.name);
  const serviceSpec = service?.spec as
    { selector?: Record<string, string>; clusterIP?: string; ports?: { port: number; targetPort?: number | string }[] } | undefined;
  if (!service || !serviceSpec) problems.push('no Service');
  else {
    if (!selects(serviceSpec.selector)) problems.push('the Service selects no pod of the Deployment');
    const headless = serviceSpec.clusterIP === 'None';
    if (app.headless && !headless)
      problems.push('the Service is not headless (clusterIP: None): its clients would see one address, not every pod');
    for (const p of serviceSpec.ports ?? []) {
      const target = p.targetPort ?? p.port;
      const targeted = (container.ports ?? []).find((c) => c.name === target || c.containerPort === target);
      if (!targeted) problems.push(`Service port ${p.port} targets ${target}, which the container does not declare`);
      // Admin and metrics ports stay off the Service: the edge's is the public one.
      else if (targeted.containerPort !== port)
        problems.push(
          `Service port ${p.port} exposes container port ${targeted.containerPort}, not the serving port ${app.portVar}=${port}`,
        );
      // A headless Service's clients connect to the pods themselves, on the port they name.
      else if (headless && p.port !== targeted.containerPort)
        problems.push(`headless Service port ${p.port} differs from the container port ${targeted.containerPort} its clients reach`);
    }
  }
  const pdb = findObject(objects, 'PodDisruptionBudget', app.name);
  const pdbSpec = pdb?.spec as
    { selector?: { matchLabels?: Record<string, string> }; maxUnavailable?: number | string; minAvailable?: number | string } | undefined;
  if (!pdbSpec) problems.push('no PodDisruptionBudget');
  else {
    if (!selects(pdbSpec.selector?.matchLabels)) problems.push('the PodDisruptionBudget selects no pod of the Deployment');
    if (pdbSpec.maxUnavailable === undefined || pdbSpec.maxUnavailable === 0)
      problems.push('the PodDisruptionBudget should allow one pod down (maxUnavailable), or drains never finish');
  }
  const hpa = findObject(objects, 'HorizontalPodAutoscaler', app.name);
  const hpaSpec = hpa?.spec as
    { scaleTargetRef?: { kind?: string; name?: string }; minReplicas?: number; maxReplicas?: number } | undefined;
  const replicas = (deployment.spec as { replicas?: number }).replicas;
  if (app.autoscaled) {
    if (!hpaSpec) problems.push('no HorizontalPodAutoscaler');
    else if (hpaSpec.scaleTargetRef?.kind !== 'Deployment' || hpaSpec.scaleTargetRef.name !== app.name)
      problems.push('the HorizontalPodAutoscaler does not scale its Deployment');
    // With both, every apply would reset the count the autoscaler chose.
    if (replicas !== undefined) problems.push('spec.replicas is set although a HorizontalPodAutoscaler owns the count');
  } else if (hpa) problems.push('has a HorizontalPodAutoscaler although it is not meant to autoscale');
  for (const obj of [deployment, service, pdb, hpa]) {
    if (obj && obj.metadata.labels?.['app.kubernetes.io/name'] !== app.name)
      problems.push(`${obj.kind} lacks the label app.kubernetes.io/name=${app.name}`);
  }
  return problems;
}
