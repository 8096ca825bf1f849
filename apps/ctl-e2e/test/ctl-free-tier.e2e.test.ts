import { ChildProcess, execFile, spawn } from 'node:child_process';
import { join } from 'node:path';
import { waitReady } from '@gw/service-kit';
import { Client as PgClient } from 'pg';
import { createTestDatabase, createTestRedis, freePort, TestDatabase, TestRedis, testTlsDir } from '@gw/testing';

const DIST = join(__dirname, '..', '..', '..', 'dist', 'apps');

/** Runs the bundled ctl with `env`: its JSON output and exit code. */
function ctl(env: Record<string, string>, ...args: string[]): Promise<{ json: unknown; exitCode: number }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [join(DIST, 'ctl', 'main.js'), ...args], { env }, (err, stdout) => {
      resolve({ json: JSON.parse(stdout), exitCode: err ? Number((err as { code?: number }).code ?? 1) : 0 });
    });
  });
}

/** Starts one bundled service with `env`, ready once its /readyz answers. */
async function startService(app: string, env: Record<string, string>, metricsPort: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, [join(DIST, app, 'main.js')], { env, stdio: 'ignore' });
  await waitReady({ url: `http://127.0.0.1:${metricsPort}/readyz` }, 30_000, () => child.exitCode === null);
  return child;
}

const stopService = async (child: ChildProcess | undefined) => {
  if (child?.exitCode === null) await new Promise((resolve) => child.once('exit', resolve).kill('SIGTERM'));
};

describe('ctl freetier set (real processes: ctl, quota-service on Redis, billing-service keeping its audit trail)', () => {
  let redis: TestRedis;
  let db: TestDatabase;
  let quota: ChildProcess;
  let billing: ChildProcess;
  let env: Record<string, string>;

  beforeAll(async () => {
    [redis, db] = await Promise.all([createTestRedis(), createTestDatabase()]);
    const [port, metricsPort, billingPort, billingMetricsPort] = await Promise.all([freePort(), freePort(), freePort(), freePort()]);
    env = { PATH: process.env.PATH ?? '', QUOTA_ADDR: `127.0.0.1:${port}`, TLS_DIR: testTlsDir('ctl') };
    const common = { PATH: env.PATH, BIND_HOST: '127.0.0.1', LOG_LEVEL: 'error' };
    billing = await startService(
      'billing-service',
      {
        ...common,
        TLS_DIR: testTlsDir('billing-service'),
        DATABASE_URL: db.url,
        BILLING_PORT: String(billingPort),
        BILLING_METRICS_PORT: String(billingMetricsPort),
      },
      billingMetricsPort,
    );
    const own = {
      ...common,
      TLS_DIR: testTlsDir('quota-service'),
      QUOTA_PORT: String(port),
      QUOTA_METRICS_PORT: String(metricsPort),
      BILLING_ADDR: `127.0.0.1:${billingPort}`,
      REDIS_URL: redis.url,
      REDIS_KEY_PREFIX: redis.keyPrefix,
    };
    quota = await startService('quota-service', own, metricsPort);
  }, 90_000);

  afterAll(async () => {
    await stopService(quota);
    await stopService(billing);
    await Promise.all([redis?.cleanup(), db?.drop()]);
  });

  it('prints the settings, the defaults first', async () => {
    expect(await ctl(env, 'freetier', 'set')).toEqual({
      exitCode: 0,
      json: { dailyTokens: 200_000, poolTokens: 50_000_000, paused: false, enabled: true },
    });
  });

  it('changes only the settings given, and keeps them', async () => {
    expect(await ctl(env, 'freetier', 'set', '--daily-tokens', '1000', '--paused', 'true')).toEqual({
      exitCode: 0,
      json: { dailyTokens: 1000, poolTokens: 50_000_000, paused: true, enabled: true },
    });
    expect(await ctl(env, 'freetier', 'set', '--pool-tokens', '0', '--enabled', 'false', '--paused', 'false')).toEqual({
      exitCode: 0,
      json: { dailyTokens: 1000, poolTokens: 0, paused: false, enabled: false },
    });
    expect((await ctl(env, 'freetier', 'set')).json).toEqual({ dailyTokens: 1000, poolTokens: 0, paused: false, enabled: false });
  });

  it("records each change, with the operator's reason, in billing-service's audit trail (a read records nothing)", async () => {
    const pg = new PgClient({ connectionString: db.url });
    await pg.connect();
    try {
      const trail = async () => (await pg.query('SELECT action, actor, reason, details FROM billing.audit_log ORDER BY seq')).rows;
      const before = (await trail()).length;
      expect((await ctl(env, 'freetier', 'set', '--daily-tokens', '2000', '--reason', 'holiday promotion')).exitCode).toBe(0);
      expect((await ctl(env, 'freetier', 'set')).exitCode).toBe(0);
      const after = await trail();
      expect(after).toHaveLength(before + 1);
      expect(after.at(-1)).toEqual({
        action: 'free-tier-set',
        actor: 'ctl',
        reason: 'holiday promotion',
        details: { dailyTokens: 2000, poolTokens: 0, paused: false, enabled: false, changed: 'daily_tokens', via: 'quota-service' },
      });
    } finally {
      await pg.end();
    }
  });

  it('refuses a value that is not one, without changing anything', async () => {
    for (const args of [
      ['--daily-tokens', '-5'],
      ['--daily-tokens', 'lots'],
      ['--pool-tokens', '1.5'],
      ['--paused', 'yes'],
    ]) {
      const refused = await ctl(env, 'freetier', 'set', ...args);
      expect(refused.exitCode).not.toBe(0);
      expect(refused.json).toEqual({ error: { code: 'USAGE', message: expect.any(String) } });
    }
    expect((await ctl(env, 'freetier', 'set')).json).toMatchObject({ dailyTokens: 2000 });
  });

  it('still prints usage as {todayTokens, totalTokens}', async () => {
    expect(await ctl(env, 'usage', 'show', '--account', 'acct_nobody')).toEqual({ exitCode: 0, json: { todayTokens: 0, totalTokens: 0 } });
  });

  it('makes no change the audit trail cannot record: billing-service stopped, the change is refused and nothing changes', async () => {
    await stopService(billing);
    const refused = await ctl(env, 'freetier', 'set', '--daily-tokens', '7', '--reason', 'while billing is down');
    expect(refused).toEqual({ exitCode: 1, json: { error: { code: 'UNAVAILABLE', message: expect.stringContaining('not made') } } });
    expect((await ctl(env, 'freetier', 'set')).json).toMatchObject({ dailyTokens: 2000 });
  });
});
