import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { readPromql, repoRoot } from '@gw/testing';
import { GatewayUnderTest, readEvents, startGateway } from '@gw/test-stack';

const ROOT = repoRoot();

/** Every metric name a /metrics text declares (# TYPE), histograms with their _bucket, _sum and _count series. */
function declaredMetrics(text: string): string[] {
  return [...text.matchAll(/^# TYPE (\S+) (\S+)$/gm)].flatMap(([, name, type]) =>
    type === 'histogram'
      ? [`${name}_bucket`, `${name}_sum`, `${name}_count`]
      : type === 'summary'
        ? [name, `${name}_sum`, `${name}_count`]
        : [name],
  );
}

const dashboardQueries = (): string[] =>
  (
    JSON.parse(readFileSync(join(ROOT, 'observability/grafana/dashboards/chat-gateway.json'), 'utf8')) as {
      panels: { targets: { expr: string }[] }[];
    }
  ).panels.flatMap((p) => p.targets.map((t) => t.expr));
const alertQueries = (): string[] =>
  (
    parse(readFileSync(join(ROOT, 'k8s/base/monitoring/prometheus-rule.yaml'), 'utf8')) as {
      spec: { groups: { rules: { expr: string }[] }[] };
    }
  ).spec.groups.flatMap((g) => g.rules.map((r) => r.expr));

/** The dashboard and the alerts ask only for metrics the running services expose. */
describe('the metrics the dashboard and the alerts name', () => {
  let gw: GatewayUnderTest;

  beforeAll(async () => {
    gw = await startGateway();
  }, 90_000);
  afterAll(() => gw?.stop(), 60_000);

  it('are all exposed by the edge, auth-, quota-, billing-service or the notifier', async () => {
    const { key } = await gw.account('5');
    await readEvents(await gw.chat(key, { model: 'vendor-v4-flash', messages: [{ role: 'user', content: 'hello' }], stream: true }));
    const apps = ['edge', 'auth-service', 'quota-service', 'billing-service', 'notifier'] as const;
    const exposed = new Set(
      (await Promise.all(apps.map(async (app) => declaredMetrics(await (await fetch(gw.stack.metricsUrls[app])).text())))).flat(),
    );
    const named = [...new Set([...dashboardQueries(), ...alertQueries()].flatMap((expr) => readPromql(expr).metrics))].sort();
    expect(named.length).toBeGreaterThan(10);
    expect(named.filter((name) => !exposed.has(name))).toEqual([]);
  }, 60_000);
});
