import { join } from 'node:path';
import { Env, GrpcSecurity, readGrpcSecurity, readInt, readOptional, readString } from '@gw/service-kit';
import { NamedPort } from './port-check';

/** One process to start. */
export interface PlannedProcess {
  app: string;
  /** Every port it listens on. */
  ports: NamedPort[];
  /** Started at once with the process before it, not after it is ready (it needs nothing of it to start). */
  withPrevious?: boolean;
}

/** Everything `npm start` starts, in order, and the environment they all get. */
export interface LaunchPlan {
  processes: PlannedProcess[];
  env: Record<string, string>;
  /** Where every process listens (BIND_HOST). */
  bindHost: string;
  edgeUrl: string;
  /** The web console's pages. */
  consoleUrl: string;
  /** console.v1, for the demo holder's invitation. */
  consoleAddr: string;
  dataDir: string;
  /** Where the development CA and every identity's certificate live ($DATA_DIR/tls), unless gRPC is plain text. */
  tlsRoot: string | undefined;
  /** The launcher's own calls (the demo account) are the operator's: the ctl certificate. */
  ctlSecurity: GrpcSecurity;
  authAddr: string;
  billingAddr: string;
}

/**
 * Plans the local stack on embedded defaults: provider-sim only when no PROVIDER_BASE_URL is set,
 * then the three services, the edge, the console and the notifier (which keeps holders' mail in
 * its outbox, shown by the console, unless SMTP_URL is set), all on 127.0.0.1.
 */
export function planLaunch(env: Env): LaunchPlan {
  const ports = {
    edge: readInt(env, 'EDGE_PORT', 8080),
    edgeAdmin: readInt(env, 'EDGE_ADMIN_PORT', 9080),
    auth: readInt(env, 'AUTH_PORT', 50051),
    quota: readInt(env, 'QUOTA_PORT', 50052),
    billing: readInt(env, 'BILLING_PORT', 50053),
    authMetrics: readInt(env, 'AUTH_METRICS_PORT', 9101),
    quotaMetrics: readInt(env, 'QUOTA_METRICS_PORT', 9102),
    billingMetrics: readInt(env, 'BILLING_METRICS_PORT', 9103),
    console: readInt(env, 'CONSOLE_PORT', 8081),
    consoleGrpc: readInt(env, 'CONSOLE_GRPC_PORT', 50054),
    consoleMetrics: readInt(env, 'CONSOLE_METRICS_PORT', 9104),
    notifier: readInt(env, 'NOTIFIER_PORT', 50055),
    notifierMetrics: readInt(env, 'NOTIFIER_METRICS_PORT', 9105),
    sim: readInt(env, 'PROVIDER_SIM_PORT', 8090),
  };
  const host = '127.0.0.1';
  const authAddr = `${host}:${ports.auth}`;
  const quotaAddr = `${host}:${ports.quota}`;
  const billingAddr = `${host}:${ports.billing}`;
  const consoleAddr = `${host}:${ports.consoleGrpc}`;
  const notifierAddr = `${host}:${ports.notifier}`;
  const consoleUrl = `http://${host}:${ports.console}`;
  const providerBaseUrl = readOptional(env, 'PROVIDER_BASE_URL');
  const childEnv: Record<string, string> = {
    ...(Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined)) as Record<string, string>),
    BIND_HOST: readString(env, 'BIND_HOST', host),
    EDGE_PORT: String(ports.edge),
    EDGE_ADMIN_PORT: String(ports.edgeAdmin),
    AUTH_PORT: String(ports.auth),
    QUOTA_PORT: String(ports.quota),
    BILLING_PORT: String(ports.billing),
    AUTH_METRICS_PORT: String(ports.authMetrics),
    QUOTA_METRICS_PORT: String(ports.quotaMetrics),
    BILLING_METRICS_PORT: String(ports.billingMetrics),
    CONSOLE_PORT: String(ports.console),
    CONSOLE_GRPC_PORT: String(ports.consoleGrpc),
    CONSOLE_METRICS_PORT: String(ports.consoleMetrics),
    NOTIFIER_PORT: String(ports.notifier),
    NOTIFIER_METRICS_PORT: String(ports.notifierMetrics),
    PROVIDER_SIM_PORT: String(ports.sim),
    AUTH_ADDR: authAddr,
    QUOTA_ADDR: quotaAddr,
    BILLING_ADDR: billingAddr,
    CONSOLE_ADDR: consoleAddr,
    NOTIFIER_ADDR: notifierAddr,
    // The links in holders' mail lead to the console started here, unless it is reached elsewhere.
    CONSOLE_PUBLIC_URL: readOptional(env, 'CONSOLE_PUBLIC_URL') ?? consoleUrl,
    PROVIDER_BASE_URL: providerBaseUrl ?? `http://${host}:${ports.sim}/v1`,
  };
  const named = (...names: string[]): NamedPort[] => names.map((name) => ({ name, port: Number(childEnv[name]) }));
  const processes: PlannedProcess[] = [];
  if (!providerBaseUrl) processes.push({ app: 'provider-sim', ports: named('PROVIDER_SIM_PORT') });
  processes.push(
    { app: 'auth-service', ports: named('AUTH_PORT', 'AUTH_METRICS_PORT') },
    { app: 'quota-service', ports: named('QUOTA_PORT', 'QUOTA_METRICS_PORT') },
    { app: 'billing-service', ports: named('BILLING_PORT', 'BILLING_METRICS_PORT') },
    { app: 'edge', ports: named('EDGE_PORT', 'EDGE_ADMIN_PORT') },
    { app: 'console', ports: named('CONSOLE_PORT', 'CONSOLE_GRPC_PORT', 'CONSOLE_METRICS_PORT') },
    // Its embedded database is made while the console makes its own.
    { app: 'notifier', ports: named('NOTIFIER_PORT', 'NOTIFIER_METRICS_PORT'), withPrevious: true },
  );
  const dataDir = readString(env, 'DATA_DIR', '.data');
  const ctlSecurity = readGrpcSecurity(env, 'ctl');
  return {
    processes,
    env: childEnv,
    bindHost: childEnv.BIND_HOST,
    edgeUrl: `http://${host}:${ports.edge}/v1`,
    consoleUrl,
    consoleAddr,
    dataDir,
    tlsRoot: ctlSecurity.kind === 'mtls' ? join(dataDir, 'tls') : undefined,
    ctlSecurity,
    authAddr,
    billingAddr,
  };
}
