import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readPromql } from '@gw/testing';
import { describe as describeObject, K8sObject } from '../src/k8s-object';
import { kustomizeBuild } from '../src/kustomize-build';
import { schemaErrors } from '../src/schema-errors';
import { unknownFieldErrors } from '../src/unknown-field-errors';
import { findObject, podTemplate } from '../src/workload';

const ROOT = join(__dirname, '..', '..', '..');
const k8s = (path: string) => join(ROOT, 'k8s', path);
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');

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
const dashboard = JSON.parse(readFileSync(join(ROOT, 'observability/grafana/dashboards/chat-gateway.json'), 'utf8')) as { uid: string; panels: Panel[] };

/** The anchor GitHub gives a README heading. */
const anchorOf = (heading: string) => heading.trim().toLowerCase().replace(/[^\w\- ]/g, '').replace(/ /g, '-');
const readmeAnchors = new Set([...README.matchAll(/^#+ (.+)$/gm)].map((m) => anchorOf(m[1])));

describe('k8s/overlays/prod/monitoring', () => {
  it('renders a PodMonitor and a PrometheusRule in the namespace, each passing its CRD schema, with no unknown field', () => {
    expect(monitoring.map(describeObject).sort()).toEqual(['PodMonitor/chat-gateway/chat-gateway', 'PrometheusRule/chat-gateway/chat-gateway']);
    expect(monitoring.flatMap(schemaErrors)).toEqual([]);
    expect(unknownFieldErrors(monitoring)).toEqual([]);
    expect(monitoring.every((o) => o.metadata.namespace === 'chat-gateway')).toBe(true);
  });

  it('alerts on errors, the outbox, the breaker, Redis, PostgreSQL and holds, each rule readable PromQL with a runbook in the README', () => {
    expect(rules.map((r) => r.alert).sort()).toEqual(
      ['GatewayErrorRatioHigh', 'HoldsPilingUp', 'PostgresUnavailable', 'ProviderBreakerOpen', 'RedisUnavailable', 'SettleOutboxGrowing', 'SettleOutboxOldBill'].sort(),
    );
    for (const rule of rules) {
      expect({ alert: rule.alert, errors: readPromql(rule.expr).errors }).toEqual({ alert: rule.alert, errors: [] });
      expect({ alert: rule.alert, runbook: readmeAnchors.has(rule.annotations.runbook.replace('README.md#', '')) }).toEqual({ alert: rule.alert, runbook: true });
      expect(rule.for).toMatch(/^\d+m$/);
    }
  });

  it('scrapes each app where it serves /metrics: the PodMonitor\'s ports and the pods\' annotations name its metrics port', () => {
    const prod = kustomizeBuild(k8s('overlays/prod'));
    const podMonitor = findObject(monitoring, 'PodMonitor', 'chat-gateway');
    const scrapedPorts = (podMonitor?.spec as { podMetricsEndpoints: { port: string }[] }).podMetricsEndpoints.map((e) => e.port);
    for (const name of ['edge', 'auth-service', 'quota-service', 'billing-service', 'console']) {
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
      for (const { expr } of panel.targets) expect({ panel: panel.title, expr, errors: readPromql(expr).errors }).toEqual({ panel: panel.title, expr, errors: [] });
    }
  });
});
