import { ChildProcess, execFile, spawn, StdioOptions } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GrpcSecurity, Readiness, readyzAt, waitReady } from '@gw/service-kit';
import { eventually, freePort, repoRoot, testTlsRoot } from '@gw/testing';

const DIST = join(repoRoot(__dirname), 'dist', 'apps');

/** Where the stack's stores are, and how many replicas of the scalable processes to run. */
export interface StackOptions {
  databaseUrl: string;
  /** quota-service's Redis: one server (`redisUrl`), or a Redis Cluster's nodes (`redisClusterNodes`, in the shard layout). */
  redisUrl?: string;
  redisClusterNodes?: string[];
  redisKeyPrefix: string;
  /** Extra environment for every process (limits, timeouts...). */
  env?: Record<string, string>;
  /** Replicas (default 1 each); edge replica i talks to auth and quota replica i modulo their count. */
  replicas?: { edge?: number; auth?: number; quota?: number };
  /** When set, every process writes a V8 CPU profile (.cpuprofile) here as it exits. */
  cpuProfileDir?: string;
  /** Node options per app, given before its main.js (for one, `--expose-gc` and a `--require`d probe). */
  execArgv?: Partial<Record<string, string[]>>;
  /** Apps whose processes get an IPC channel, to be reached through `processes(app)`. */
  ipc?: string[];
  /**
   * quota-service replicas as pods behind one name: replica i binds `bindHosts[i]` (a loopback
   * address), all on one port, and every edge reaches them at `address(port)` (a dns:// name).
   */
  quotaSpread?: { bindHosts: string[]; address: (port: number) => string };
  /**
   * Where replica `replica` (0-based) of `app` is built, when not this checkout's dist/apps: an
   * older release's, to run a stack of mixed versions as a rolling upgrade does (see buildRelease).
   */
  distOf?: (app: string, replica: number) => string | undefined;
}

/** A running stack of real processes on loopback. */
export interface RunningStack {
  /** The client base address of the first edge, `http://127.0.0.1:<port>/v1`. */
  baseUrl: string;
  /** The base address of every edge replica. */
  baseUrls: string[];
  /** The web console's address, `http://127.0.0.1:<port>`. */
  consoleUrl: string;
  /** The /metrics address of every process that has one, by app (first replica). */
  metricsUrls: Record<'auth-service' | 'quota-service' | 'billing-service' | 'edge' | 'notifier', string>;
  /** The /metrics address of every replica of auth- or quota-service or of the edge, in start order. */
  replicaMetricsUrls: Record<'auth-service' | 'quota-service' | 'edge', string[]>;
  providerUrl: string;
  env: Record<string, string>;
  /** The folder of the stack's CA (ca.crt, ca.key) and of one certificate folder per identity. */
  tlsRoot: string;
  /** The mutual-TLS settings of a caller with the certificate of `identity` (edge, ctl, chat-product...). */
  grpcSecurity(identity: string): GrpcSecurity;
  /** Every log line the processes wrote, for assertions about what is (not) logged. */
  logs: string[];
  /** Runs the operator CLI against this stack: parsed JSON output and exit code. */
  ctl(...args: string[]): Promise<{ json: unknown; exitCode: number }>;
  /**
   * SIGTERM to every replica of one app, waiting for each to exit (a fault test's outage, or a
   * graceful shutdown under test): the exit code of each, null for one ended by a signal.
   */
  stopApp(app: string): Promise<(number | null)[]>;
  /**
   * SIGKILL to every replica of one app, or only to replica `replica` (0-based, in start order),
   * waiting for each to exit: a crash, with no drain and no goodbye to its peers.
   */
  killApp(app: string, replica?: number): Promise<void>;
  /**
   * SIGSTOP to every replica of one app, or only to replica `replica` (0-based, in start order): it
   * answers nothing, as a process stuck in a long pause.
   */
  pauseApp(app: string, replica?: number): void;
  /** SIGCONT to the replicas paused with pauseApp (all of the app's, or replica `replica`). */
  resumeApp(app: string, replica?: number): void;
  /** Starts the stopped replicas of an app again, as they were, and waits until they are ready. */
  startApp(app: string): Promise<void>;
  /** The running processes of an app (one per replica), for instance to talk to over their IPC channel. */
  processes(app: string): ChildProcess[];
  /** SIGTERM to every process (edges first), waiting for each to exit. */
  stop(): Promise<void>;
}

interface PlannedProcess {
  app: string;
  replica: number;
  env: Record<string, string>;
  readiness: Readiness;
}

/** Polls an edge's /metrics until its key cache is trusted (edge_key_cache_trusted 1). */
async function waitForKeyCache(adminPort: number, timeoutMs = 10_000): Promise<void> {
  const trusted = async () =>
    /^edge_key_cache_trusted 1$/m.test(
      await fetch(`http://127.0.0.1:${adminPort}/metrics`).then(
        (res) => res.text(),
        () => '',
      ),
    );
  await eventually(trusted, { timeoutMs, intervalMs: 100, what: `edge on admin port ${adminPort}: key cache trusted` });
}

/**
 * Waits until a quota-service holds billing-service's price table (quota_price_watch_up 1): its
 * channel to billing-service is up. All processes start at once, so a quota-service can be ready
 * before billing-service listens, and until its channel's next try its calls to billing-service
 * (an operator's audited change) fail at once.
 */
async function waitForPriceWatch(metricsUrl: string, timeoutMs = 15_000): Promise<void> {
  const up = async () => {
    const text = await fetch(metricsUrl).then(
      (res) => res.text(),
      () => '',
    );
    // A quota-service of an older release has no price watch: nothing to wait for.
    return /^quota_price_watch_up 1$/m.test(text) || (text !== '' && !/^quota_price_watch_up /m.test(text));
  };
  await eventually(up, { timeoutMs, intervalMs: 100, what: `quota-service at ${metricsUrl}: price watch up` });
}

const range = (n: number) => Array.from({ length: n }, (_, i) => i);
const readyz = (port: number, host = '127.0.0.1'): Readiness => readyzAt(host, port);

/**
 * Starts provider-sim, auth-, quota- and billing-service, the edge, the console and the notifier
 * from `dist/` (built by the Jest global setup) as separate processes, on free ports, against the
 * given stores. Without SMTP_URL in `env`, the notifier keeps holders' mail in its outbox.
 */
export async function startStack(options: StackOptions): Promise<RunningStack> {
  const spread = options.quotaSpread;
  const count = {
    edge: options.replicas?.edge ?? 1,
    auth: options.replicas?.auth ?? 1,
    quota: spread?.bindHosts.length ?? options.replicas?.quota ?? 1,
  };
  const ports = async (n: number) => Promise.all(range(n).map(() => freePort()));
  const [
    edgePorts,
    adminPorts,
    authPorts,
    quotaPorts,
    [billing, sim, billingMetrics, consoleHttp, consoleGrpc, consoleMetrics, notifierGrpc, notifierMetrics],
    authMetrics,
    quotaMetrics,
  ] = await Promise.all([
    ports(count.edge),
    ports(count.edge),
    ports(count.auth),
    ports(count.quota),
    ports(8),
    ports(count.auth),
    ports(count.quota),
  ]);
  const dataDir = mkdtempSync(join(tmpdir(), 'gw-stack-'));
  const tlsRoot = testTlsRoot();
  const tlsDir = (identity: string) => join(tlsRoot, identity);
  const addr = (port: number) => `127.0.0.1:${port}`;
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    LOG_LEVEL: 'info',
    BIND_HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    DATABASE_URL: options.databaseUrl,
    ...(options.redisClusterNodes ? { REDIS_CLUSTER_NODES: options.redisClusterNodes.join(',') } : {}),
    ...(options.redisUrl !== undefined ? { REDIS_URL: options.redisUrl } : {}),
    REDIS_KEY_PREFIX: options.redisKeyPrefix,
    BILLING_PORT: String(billing),
    BILLING_METRICS_PORT: String(billingMetrics),
    PROVIDER_SIM_PORT: String(sim),
    AUTH_ADDR: addr(authPorts[0]),
    QUOTA_ADDR: spread ? spread.address(quotaPorts[0]) : addr(quotaPorts[0]),
    BILLING_ADDR: addr(billing),
    CONSOLE_ADDR: addr(consoleGrpc),
    NOTIFIER_ADDR: addr(notifierGrpc),
    CONSOLE_PUBLIC_URL: `http://127.0.0.1:${consoleHttp}`,
    PROVIDER_BASE_URL: `http://127.0.0.1:${sim}/v1`,
    PROVIDER_API_KEY: 'gateway-own-provider-key',
    ...options.env,
  };
  const plan: PlannedProcess[] = [
    { app: 'provider-sim', replica: 0, env: {}, readiness: { url: `http://127.0.0.1:${sim}/healthz` } },
    ...authPorts.map((p, i) => ({
      app: 'auth-service',
      replica: i,
      env: { AUTH_PORT: String(p), AUTH_METRICS_PORT: String(authMetrics[i]), TLS_DIR: tlsDir('auth-service') },
      readiness: readyz(authMetrics[i]),
    })),
    ...quotaPorts.map((p, i) => ({
      app: 'quota-service',
      replica: i,
      env: {
        QUOTA_PORT: String(spread ? quotaPorts[0] : p),
        QUOTA_METRICS_PORT: String(quotaMetrics[i]),
        TLS_DIR: tlsDir('quota-service'),
        ...(spread && { BIND_HOST: spread.bindHosts[i] }),
      },
      readiness: readyz(quotaMetrics[i], spread?.bindHosts[i]),
    })),
    { app: 'billing-service', replica: 0, env: { TLS_DIR: tlsDir('billing-service') }, readiness: readyz(billingMetrics) },
    {
      app: 'console',
      replica: 0,
      env: {
        CONSOLE_PORT: String(consoleHttp),
        CONSOLE_GRPC_PORT: String(consoleGrpc),
        CONSOLE_METRICS_PORT: String(consoleMetrics),
        TLS_DIR: tlsDir('console'),
      },
      readiness: readyz(consoleMetrics),
    },
    {
      app: 'notifier',
      replica: 0,
      env: { NOTIFIER_PORT: String(notifierGrpc), NOTIFIER_METRICS_PORT: String(notifierMetrics), TLS_DIR: tlsDir('notifier') },
      readiness: readyz(notifierMetrics),
    },
    ...edgePorts.map((p, i) => ({
      app: 'edge',
      replica: i,
      env: {
        EDGE_PORT: String(p),
        EDGE_ADMIN_PORT: String(adminPorts[i]),
        AUTH_ADDR: addr(authPorts[i % authPorts.length]),
        QUOTA_ADDR: spread ? spread.address(quotaPorts[0]) : addr(quotaPorts[i % quotaPorts.length]),
        TLS_DIR: tlsDir('edge'),
      },
      readiness: readyz(adminPorts[i]),
    })),
  ];

  const logs: string[] = [];
  const running = new Map<PlannedProcess, ChildProcess>();
  /** Processes a test or stop() asked to end; any other that exits has its last lines printed. */
  const ended = new WeakSet<ChildProcess>();
  /** SIGTERM, and SIGKILL should the process not have exited `waitMs` later. */
  const terminate = (child: ChildProcess, waitMs = Infinity) =>
    new Promise<number | null>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve(child.exitCode);
      ended.add(child);
      const timer = Number.isFinite(waitMs) ? setTimeout(() => child.kill('SIGKILL'), waitMs) : undefined;
      child.once('exit', (code) => {
        clearTimeout(timer);
        resolve(code);
      });
      child.kill('SIGTERM');
    });
  const kill = (child: ChildProcess) =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      ended.add(child);
      child.once('exit', () => resolve());
      child.kill('SIGKILL');
    });
  const isStopped = (planned: PlannedProcess) => {
    const child = running.get(planned);
    return child === undefined || child.exitCode !== null || child.signalCode !== null;
  };
  const processesOf = (app: string) =>
    [...running]
      .filter(([planned, child]) => planned.app === app && child.exitCode === null && child.signalCode === null)
      .map(([, child]) => child);
  /** The processes of every replica of an app, or of replica `replica` only, in start order. */
  const replicasOf = (app: string, replica?: number) => {
    const replicas = plan.filter((p) => p.app === app);
    return (replica === undefined ? replicas : replicas.slice(replica, replica + 1)).map((p) => running.get(p));
  };
  const launch = async (planned: PlannedProcess) => {
    const profiling = options.cpuProfileDir
      ? ['--cpu-prof', `--cpu-prof-dir=${options.cpuProfileDir}`, `--cpu-prof-name=${planned.app}.${Date.now()}.cpuprofile`]
      : [];
    const nodeOptions = [...profiling, ...(options.execArgv?.[planned.app] ?? [])];
    const stdio: StdioOptions = options.ipc?.includes(planned.app) ? ['ignore', 'pipe', 'pipe', 'ipc'] : ['ignore', 'pipe', 'pipe'];
    const dist = options.distOf?.(planned.app, planned.replica) ?? DIST;
    const child = spawn(process.execPath, [...nodeOptions, join(dist, planned.app, 'main.js')], { env: { ...env, ...planned.env }, stdio });
    running.set(planned, child);
    // Its own stderr, kept apart: a crash's stack trace is not a JSON line naming the service.
    const stderrTail: string[] = [];
    child.once('exit', (code, signal) => {
      if (ended.has(child)) return;
      const own = logs.filter((line) => line.includes(`"service":"${planned.app}"`)).slice(-20);
      console.error(
        `${planned.app} (replica ${planned.replica}) exited on its own (${signal ?? `code ${code}`}); its last lines:\n${own.join('\n')}` +
          `\nits stderr's last lines:\n${stderrTail.join('\n')}`,
      );
    });
    for (const stream of [child.stdout, child.stderr])
      stream?.on('data', (d: Buffer) => {
        const lines = d.toString('utf8').split('\n').filter(Boolean);
        logs.push(...lines);
        if (stream === child.stderr) stderrTail.splice(0, Math.max(0, stderrTail.length + lines.length - 40), ...lines);
      });
    await waitReady(planned.readiness, 30_000, () => child.exitCode === null).catch((err: Error) => {
      throw new Error(`${planned.app} did not start: ${err.message}\n${logs.slice(-20).join('\n')}`);
    });
  };
  const stop = async () => {
    // At the end of a test, a process still busy 20 s after SIGTERM (an edge retrying the finishes
    // of a quota-service that is gone) is killed: one failure must not hang the whole run.
    for (const child of [...running.values()].reverse()) await terminate(child, 20_000);
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    await Promise.all(plan.map(launch));
    // Until an edge has heard from auth-service's change stream, it asks about every key: tests that
    // count Authenticate calls would depend on that race.
    await Promise.all(adminPorts.map((port) => waitForKeyCache(port)));
    // Only against this build's billing-service: an older one may have no price watch to offer.
    if (!options.distOf?.('billing-service', 0))
      await Promise.all(quotaMetrics.map((port, i) => waitForPriceWatch(`http://${spread?.bindHosts[i] ?? '127.0.0.1'}:${port}/metrics`)));
  } catch (err) {
    await stop();
    throw err;
  }
  const baseUrls = edgePorts.map((p) => `http://127.0.0.1:${p}/v1`);
  return {
    baseUrl: baseUrls[0],
    baseUrls,
    consoleUrl: `http://127.0.0.1:${consoleHttp}`,
    metricsUrls: {
      'auth-service': `http://127.0.0.1:${authMetrics[0]}/metrics`,
      'quota-service': `http://${spread?.bindHosts[0] ?? '127.0.0.1'}:${quotaMetrics[0]}/metrics`,
      'billing-service': `http://127.0.0.1:${billingMetrics}/metrics`,
      edge: `http://127.0.0.1:${adminPorts[0]}/metrics`,
      notifier: `http://127.0.0.1:${notifierMetrics}/metrics`,
    },
    replicaMetricsUrls: {
      'auth-service': authMetrics.map((p) => `http://127.0.0.1:${p}/metrics`),
      'quota-service': quotaMetrics.map((p, i) => `http://${spread?.bindHosts[i] ?? '127.0.0.1'}:${p}/metrics`),
      edge: adminPorts.map((p) => `http://127.0.0.1:${p}/metrics`),
    },
    providerUrl: env.PROVIDER_BASE_URL,
    env,
    tlsRoot,
    grpcSecurity: (identity) => ({ kind: 'mtls', dir: tlsDir(identity), refreshMs: 60_000 }),
    logs,
    ctl: (...args) =>
      new Promise((resolve) => {
        execFile(process.execPath, [join(DIST, 'ctl', 'main.js'), ...args], { env: { ...env, TLS_DIR: tlsDir('ctl') } }, (err, stdout) => {
          resolve({ json: JSON.parse(stdout), exitCode: err ? Number((err as { code?: number }).code ?? 1) : 0 });
        });
      }),
    stopApp: async (app) => {
      const codes: (number | null)[] = [];
      for (const [planned, child] of running) if (planned.app === app) codes.push(await terminate(child));
      return codes;
    },
    killApp: async (app, replica) => {
      await Promise.all(replicasOf(app, replica).map((child) => child && kill(child)));
    },
    pauseApp: (app, replica) => replicasOf(app, replica).forEach((child) => child?.kill('SIGSTOP')),
    resumeApp: (app, replica) => replicasOf(app, replica).forEach((child) => child?.kill('SIGCONT')),
    processes: processesOf,
    startApp: async (app) => {
      // Only the stopped ones: a replica still running keeps its port, so a second launch would fail.
      await Promise.all(plan.filter((p) => p.app === app && isStopped(p)).map(launch));
    },
    stop,
  };
}
