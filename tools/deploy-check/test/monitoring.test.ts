import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { readPromql } from '@gw/testing';
import { composeErrors, readCompose } from '../src/compose-errors';
import { describe as describeObject, K8sObject } from '../src/k8s-object';
import { kustomizeBuild } from '../src/kustomize-build';
import { schemaErrors } from '../src/schema-errors';
import { unknownFieldErrors } from '../src/unknown-field-errors';
import { findObject, podTemplate } from '../src/workload';

const ROOT = join(__dirname, '..', '..', '..');
const k8s = (path: string) => join(ROOT, 'k8s', path);
const RUNBOOKS = 'docs/operations.md';
const runbooksText = readFileSync(join(ROOT, RUNBOOKS), 'utf8');

interface Rule {
  alert: string;
  expr: string;
  for?: string;
  annotations: Record<string, string>;
}
interface Panel {
  title: string;
  targets: { expr: string }[];
}

const monitoring = kustomizeBuild(k8s('overlays/prod/monitoring'));
const rules = monitoring
  .filter((o) => o.kind === 'PrometheusRule')
  .flatMap((o) => (o.spec as { groups: { rules: Rule[] }[] }).groups.flatMap((g) => g.rules));
const dashboard = JSON.parse(readFileSync(join(ROOT, 'observability/grafana/dashboards/chat-gateway.json'), 'utf8')) as {
  uid: string;
  panels: Panel[];
};

/**
 * promtool: PROMTOOL, else the one .ci/run takes from Debian's prometheus package, else on PATH.
 * Without it the test fails saying how to get it.
 */
function promtool(): string {
  const cached = join(homedir(), '.cache/chat-gateway/prometheus/root/usr/bin/promtool');
  const found = process.env.PROMTOOL ?? (existsSync(cached) ? cached : 'promtool');
  try {
    execFileSync(found, ['--version'], { stdio: 'ignore' });
  } catch {
    throw new Error(
      "promtool not found: set PROMTOOL, or run .ci/run (it unpacks it from Debian's prometheus package), or apt-get install prometheus",
    );
  }
  return found;
}

/** The anchor GitHub gives a Markdown heading. */
const anchorOf = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\w\- ]/g, '')
    .replace(/ /g, '-');
const runbookAnchors = new Set([...runbooksText.matchAll(/^#+ (.+)$/gm)].map((m) => `${RUNBOOKS}#${anchorOf(m[1])}`));

describe('k8s/overlays/prod/monitoring', () => {
  it('renders a PodMonitor and a PrometheusRule in the namespace, each passing its CRD schema, with no unknown field', () => {
    expect(monitoring.map(describeObject).sort()).toEqual([
      'PodMonitor/chat-gateway/chat-gateway',
      'PrometheusRule/chat-gateway/chat-gateway',
    ]);
    expect(monitoring.flatMap(schemaErrors)).toEqual([]);
    expect(unknownFieldErrors(monitoring)).toEqual([]);
    expect(monitoring.every((o) => o.metadata.namespace === 'chat-gateway')).toBe(true);
  });

  it('alerts on errors, the outbox, the breaker, Redis, PostgreSQL, holds, mail and leaked keys, each rule readable PromQL with a runbook in docs/operations.md', () => {
    expect(rules.map((r) => r.alert).sort()).toEqual(
      [
        'EdgeFinalBillsNearLimit',
        'GatewayErrorRatioHigh',
        'BillsSetAside',
        'HoldsPilingUp',
        'LapseCorrectionShortfall',
        'LeakedKeySuspected',
        'MoneyAuditViolation',
        'NotifierMailFailing',
        'PostgresUnavailable',
        'ProviderBreakerOpen',
        'RedisUnavailable',
        'SettleOutboxGrowing',
        'SettleOutboxOldBill',
      ].sort(),
    );
    for (const rule of rules) {
      expect({ alert: rule.alert, errors: readPromql(rule.expr).errors }).toEqual({ alert: rule.alert, errors: [] });
      expect({ alert: rule.alert, runbook: runbookAnchors.has(rule.annotations.runbook) }).toEqual({ alert: rule.alert, runbook: true });
      expect(rule.for).toMatch(/^\d+m$/);
    }
  });

  /** Runs `promtool test rules` on a test file beside this one, against the rules of the rendered PrometheusRule. */
  function promtoolTest(testFile: string): string {
    const dir = mkdtempSync(join(tmpdir(), 'promtool-'));
    try {
      const groups = monitoring.filter((o) => o.kind === 'PrometheusRule').flatMap((o) => (o.spec as { groups: unknown[] }).groups);
      writeFileSync(join(dir, 'rules.yaml'), stringify({ groups }));
      const tests = parse(readFileSync(join(__dirname, testFile), 'utf8')) as Record<string, unknown>;
      writeFileSync(join(dir, 'tests.yaml'), stringify({ rule_files: ['rules.yaml'], ...tests }));
      return execFileSync(promtool(), ['test', 'rules', join(dir, 'tests.yaml')], { encoding: 'utf8' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  it.each([
    ['MoneyAuditViolation at an audit that finds any violation, and only then', 'money-audit-alert.promtool.yaml'],
    [
      'EdgeFinalBillsNearLimit when an edge keeps over 80% of its bound of final bills for 5 minutes',
      'edge-final-bills-alert.promtool.yaml',
    ],
    [
      'BillsSetAside while bills have waited set aside for 5 minutes, and clears once each is decided',
      'bills-set-aside-alert.promtool.yaml',
    ],
    ['LapseCorrectionShortfall at a shortfall, and clears an hour after the last', 'lapse-shortfall-alert.promtool.yaml'],
    ['LeakedKeySuspected at a spend alert raised for a holder, and clears an hour after the last', 'leaked-key-alert.promtool.yaml'],
    ['NotifierMailFailing while a mail waits past 15 minutes, and for an hour after one is given up', 'notifier-mail-alert.promtool.yaml'],
  ])('fires %s (promtool test rules)', (_alert, testFile) => {
    expect(promtoolTest(testFile)).toContain('SUCCESS');
  });

  it("scrapes each app where it serves /metrics: the PodMonitor's ports and the pods' annotations name its metrics port", () => {
    const prod = kustomizeBuild(k8s('overlays/prod'));
    const podMonitor = findObject(monitoring, 'PodMonitor', 'chat-gateway');
    const scrapedPorts = (podMonitor?.spec as { podMetricsEndpoints: { port: string }[] }).podMetricsEndpoints.map((e) => e.port);
    for (const name of ['edge', 'auth-service', 'quota-service', 'billing-service', 'console', 'notifier']) {
      const template = podTemplate(findObject(prod, 'Deployment', name) as K8sObject);
      const ports = (template.spec.containers[0] as { ports: { name: string; containerPort: number }[] }).ports;
      const metricsPort = ports.find((p) => scrapedPorts.includes(p.name));
      const { annotations } = template;
      expect({ name, port: metricsPort?.containerPort }).toEqual({ name, port: Number(annotations['prometheus.io/port']) });
      expect(annotations['prometheus.io/scrape']).toBe('true');
    }
  });
});

describe('the Grafana dashboard (observability/grafana/dashboards/chat-gateway.json)', () => {
  it('has traffic, errors by code, latency percentiles, tokens and money, limit refusals, the outbox, the breaker and holds', () => {
    const titles = dashboard.panels.map((p) => p.title.toLowerCase());
    for (const topic of ['traffic', 'errors', 'latency percentiles', 'tokens', 'money', 'limit refusals', 'outbox', 'breaker', 'holds']) {
      expect({ topic, found: titles.some((t) => t.includes(topic)) }).toEqual({ topic, found: true });
    }
  });

  it('asks every panel in readable PromQL', () => {
    for (const panel of dashboard.panels) {
      expect(panel.targets.length).toBeGreaterThan(0);
      for (const { expr } of panel.targets)
        expect({ panel: panel.title, expr, errors: readPromql(expr).errors }).toEqual({ panel: panel.title, expr, errors: [] });
    }
  });
});

describe("docker compose's observability profile", () => {
  type Service = { profiles?: string[]; environment?: Record<string, string>; volumes?: string[] };
  const services = readCompose(readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8')).services as Record<string, Service>;
  const tracing = readCompose(readFileSync(join(ROOT, 'observability/docker-compose.tracing.yml'), 'utf8'));
  const METRICS_PORTS: Record<string, string> = {
    edge: 'EDGE_ADMIN_PORT',
    'auth-service': 'AUTH_METRICS_PORT',
    'quota-service': 'QUOTA_METRICS_PORT',
    'billing-service': 'BILLING_METRICS_PORT',
    console: 'CONSOLE_METRICS_PORT',
    notifier: 'NOTIFIER_METRICS_PORT',
  };

  it('adds Jaeger, Prometheus and Grafana only with --profile observability', () => {
    for (const name of ['jaeger', 'prometheus', 'grafana'])
      expect({ name, profiles: services[name].profiles }).toEqual({ name, profiles: ['observability'] });
  });

  it('has Prometheus scrape every app on the port its metrics are served on, and Grafana load the dashboard from it', () => {
    const config = parse(readFileSync(join(ROOT, 'observability/prometheus/prometheus.yml'), 'utf8')) as {
      scrape_configs: { job_name: string; static_configs: { targets: string[] }[] }[];
    };
    const targets = Object.fromEntries(config.scrape_configs.map((c) => [c.job_name, c.static_configs.flatMap((s) => s.targets)]));
    for (const [app, portVar] of Object.entries(METRICS_PORTS))
      expect({ app, targets: targets[app] }).toEqual({ app, targets: [`${app}:${services[app].environment?.[portVar]}`] });
    const datasources = parse(readFileSync(join(ROOT, 'observability/grafana/provisioning/datasources/prometheus.yaml'), 'utf8')) as {
      datasources: { type: string; url: string }[];
    };
    expect(datasources.datasources).toEqual([expect.objectContaining({ type: 'prometheus', url: 'http://prometheus:9090' })]);
    expect(services.grafana.volumes).toContain('./observability/grafana/dashboards:/var/lib/grafana/dashboards:ro');
  });

  it('traces every gateway process to Jaeger with the tracing file, which is a valid compose file of the same services', () => {
    expect(composeErrors(tracing)).toEqual([]);
    const traced = tracing.services as Record<string, Service>;
    expect(Object.keys(traced).sort()).toEqual([
      'auth-service',
      'billing-service',
      'console',
      'edge',
      'notifier',
      'provider-sim',
      'quota-service',
    ]);
    for (const [name, service] of Object.entries(traced)) {
      expect(services[name]).toBeDefined();
      expect({ name, endpoint: service.environment?.OTEL_EXPORTER_OTLP_ENDPOINT }).toEqual({ name, endpoint: 'http://jaeger:4318' });
    }
  });
});
