// Draws docs/dashboard.png: the panels of observability/grafana/dashboards/chat-gateway.json,
// each query asked of a real Prometheus (Debian's `prometheus` package) that scraped a whole
// stack every second while a mixed load with faults ran through it.
//   npm run -s build && node dist/bench/dashboard-picture.js
import { ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RunningStack, startStack } from '@gw/test-stack';
import { createTestDatabase, createTestRedis, freePort, launchChromium, repoRoot } from '@gw/testing';
import { waitReady } from '@gw/service-kit';
import { AccountPool } from './account-pool';
import { drawDashboard, PanelData } from './dashboard-page';

const ROOT = repoRoot(__dirname);
const LOAD_SECONDS = Number(process.env.PICTURE_LOAD_SECONDS ?? 150);
const STEP_SECONDS = 2;

interface DashboardPanel {
  title: string;
  fieldConfig: { defaults: { unit: string } };
  targets: { expr: string; legendFormat: string }[];
}

async function startPrometheus(stack: RunningStack, dir: string): Promise<{ url: string; process: ChildProcess }> {
  const port = await freePort();
  const targets = Object.entries(stack.metricsUrls).map(([app, url]) => ({ job: app, target: new URL(url).host }));
  const config = [
    'global:',
    '  scrape_interval: 1s',
    'scrape_configs:',
    ...targets.flatMap(({ job, target }) => [`  - job_name: ${job}`, '    static_configs:', `      - targets: ["${target}"]`]),
  ];
  writeFileSync(join(dir, 'prometheus.yml'), `${config.join('\n')}\n`);
  const prometheus = spawn(
    'prometheus',
    [`--config.file=${join(dir, 'prometheus.yml')}`, `--storage.tsdb.path=${join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`],
    { stdio: 'ignore' },
  );
  await waitReady({ url: `http://127.0.0.1:${port}/-/ready` }, 30_000, () => prometheus.exitCode === null);
  return { url: `http://127.0.0.1:${port}`, process: prometheus };
}

/** A mixed load: paid and free, whole and streamed, some over the limits, some broken by the provider, and a provider outage. */
async function runLoad(stack: RunningStack, pool: AccountPool, freeKeys: string[]): Promise<void> {
  const chat = (key: string, body: Record<string, unknown>) =>
    fetch(`${stack.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    })
      .then((res) => res.arrayBuffer())
      .catch(() => undefined);
  const words = [
    'hello there',
    'tell me a story [[sim:words=40,piece_delay_ms=20]]',
    'short',
    'a b c [[sim:break_after=3]]',
    'explain [[sim:words=80]]',
  ];
  const until = Date.now() + LOAD_SECONDS * 1000;
  let tick = 0;
  const outageAt = Date.now() + LOAD_SECONDS * 400;
  let outage: Promise<void> | undefined;
  while (Date.now() < until) {
    tick++;
    const key = pool.take();
    if (key) {
      const model = tick % 4 === 0 ? 'vendor-v4-pro' : 'vendor-v4-flash';
      void chat(key, { model, messages: [{ role: 'user', content: words[tick % words.length] }], stream: tick % 3 !== 0 });
    }
    if (tick % 5 === 0)
      void chat(freeKeys[tick % freeKeys.length], { model: 'vendor-v4-flash', messages: [{ role: 'user', content: 'free one' }] });
    // One hot account: over 30 a minute and 3 at a time.
    if (tick % 2 === 0)
      void chat(freeKeys[0], {
        model: 'vendor-v4-flash',
        messages: [{ role: 'user', content: 'slow [[sim:words=30,piece_delay_ms=100]]' }],
        stream: true,
      });
    if (!outage && Date.now() > outageAt) {
      outage = (async () => {
        await stack.stopApp('provider-sim');
        await new Promise((r) => setTimeout(r, 20_000));
        await stack.startApp('provider-sim');
      })();
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  await outage;
}

async function queryRange(
  prometheusUrl: string,
  expr: string,
  start: number,
  end: number,
): Promise<{ metric: Record<string, string>; values: [number, string][] }[]> {
  const params = new URLSearchParams({
    query: expr.replace(/\$__rate_interval/g, '15s'),
    start: String(start),
    end: String(end),
    step: String(STEP_SECONDS),
  });
  const body = (await (await fetch(`${prometheusUrl}/api/v1/query_range?${params}`)).json()) as {
    status: string;
    error?: string;
    data: { result: { metric: Record<string, string>; values: [number, string][] }[] };
  };
  if (body.status !== 'success') throw new Error(`${expr}: ${body.error}`);
  return body.data.result;
}

const legendOf = (format: string, metric: Record<string, string>) =>
  format.replace(/\{\{(\w+)\}\}/g, (_, label: string) => metric[label] ?? '');

async function main(): Promise<void> {
  const dashboard = JSON.parse(readFileSync(join(ROOT, 'observability/grafana/dashboards/chat-gateway.json'), 'utf8')) as {
    title: string;
    panels: DashboardPanel[];
  };
  const dir = mkdtempSync(join(tmpdir(), 'dashboard-picture-'));
  const [db, redis] = await Promise.all([createTestDatabase(), createTestRedis()]);
  const stack = await startStack({
    databaseUrl: db.url,
    redisUrl: redis.url,
    redisKeyPrefix: redis.keyPrefix,
    env: { LOG_LEVEL: 'warn', SETTLE_POLL_MS: '500' },
  });
  const prometheus = await startPrometheus(stack, dir);
  try {
    const pool = await AccountPool.create(20, stack.env.AUTH_ADDR, stack.env.BILLING_ADDR, stack.grpcSecurity('ctl'));
    const freeKeys: string[] = [];
    for (let i = 0; i < 4; i++) {
      const { accountId } = (await stack.ctl('account', 'create', '--name', 'free')).json as { accountId: string };
      freeKeys.push(((await stack.ctl('key', 'create', '--account', accountId)).json as { key: string }).key);
    }
    const start = Math.floor(Date.now() / 1000);
    process.stdout.write(`load for ${LOAD_SECONDS} s, Prometheus scraping every second\n`);
    await runLoad(stack, pool, freeKeys);
    await new Promise((r) => setTimeout(r, 5000));
    const end = Math.floor(Date.now() / 1000);
    const panels: PanelData[] = [];
    for (const panel of dashboard.panels) {
      const series: PanelData['series'] = [];
      for (const target of panel.targets) {
        for (const result of await queryRange(prometheus.url, target.expr, start, end)) {
          series.push({
            name: legendOf(target.legendFormat, result.metric),
            points: result.values.map(([at, v]) => [at - start, Number(v)]),
          });
        }
      }
      panels.push({ title: panel.title, unit: panel.fieldConfig.defaults.unit, series });
    }
    writeFileSync(join(dir, 'dashboard.html'), drawDashboard(dashboard.title, panels, end - start));
    const browser = await launchChromium();
    try {
      const page = await browser.newPage({ viewport: { width: 1600, height: 900 } });
      await page.goto(`file://${join(dir, 'dashboard.html')}`);
      await page.screenshot({ path: join(ROOT, 'docs', 'dashboard.png'), fullPage: true });
    } finally {
      await browser.close();
    }
    process.stdout.write(`wrote docs/dashboard.png (${panels.length} panels, ${panels.reduce((n, p) => n + p.series.length, 0)} series)\n`);
  } finally {
    prometheus.process.kill('SIGTERM');
    await stack.stop();
    await Promise.all([db.drop(), redis.cleanup()]);
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
