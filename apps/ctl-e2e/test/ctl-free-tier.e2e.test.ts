import { ChildProcess, execFile, spawn } from 'node:child_process';
import { join } from 'node:path';
import { waitReady } from '@gw/service-kit';
import { createTestRedis, freePort, TestRedis, testTlsDir } from '@gw/testing';

const DIST = join(__dirname, '..', '..', '..', 'dist', 'apps');

/** Runs the bundled ctl with `env`: its JSON output and exit code. */
function ctl(env: Record<string, string>, ...args: string[]): Promise<{ json: unknown; exitCode: number }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [join(DIST, 'ctl', 'main.js'), ...args], { env }, (err, stdout) => {
      resolve({ json: JSON.parse(stdout), exitCode: err ? Number((err as { code?: number }).code ?? 1) : 0 });
    });
  });
}

describe('ctl freetier set (real processes: ctl and quota-service on Redis)', () => {
  let redis: TestRedis;
  let quota: ChildProcess;
  let env: Record<string, string>;

  beforeAll(async () => {
    redis = await createTestRedis();
    const [port, metricsPort] = await Promise.all([freePort(), freePort()]);
    env = { PATH: process.env.PATH ?? '', QUOTA_ADDR: `127.0.0.1:${port}`, TLS_DIR: testTlsDir('ctl') };
    const own = { ...env, TLS_DIR: testTlsDir('quota-service'), QUOTA_PORT: String(port), QUOTA_METRICS_PORT: String(metricsPort), BIND_HOST: '127.0.0.1', REDIS_URL: redis.url, REDIS_KEY_PREFIX: redis.keyPrefix, LOG_LEVEL: 'error' };
    quota = spawn(process.execPath, [join(DIST, 'quota-service', 'main.js')], { env: own, stdio: 'ignore' });
    await waitReady({ url: `http://127.0.0.1:${metricsPort}/readyz` }, 30_000, () => quota.exitCode === null);
  });

  afterAll(async () => {
    if (quota?.exitCode === null) await new Promise((resolve) => quota.once('exit', resolve).kill('SIGTERM'));
    await redis?.cleanup();
  });

  it('prints the settings, the defaults first', async () => {
    expect(await ctl(env, 'freetier', 'set')).toEqual({ exitCode: 0, json: { dailyTokens: 200_000, poolTokens: 50_000_000, paused: false, enabled: true } });
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

  it('refuses a value that is not one, without changing anything', async () => {
    for (const args of [['--daily-tokens', '-5'], ['--daily-tokens', 'lots'], ['--pool-tokens', '1.5'], ['--paused', 'yes']]) {
      const refused = await ctl(env, 'freetier', 'set', ...args);
      expect(refused.exitCode).not.toBe(0);
      expect(refused.json).toEqual({ error: { code: 'USAGE', message: expect.any(String) } });
    }
    expect((await ctl(env, 'freetier', 'set')).json).toMatchObject({ dailyTokens: 1000 });
  });

  it('still prints usage as {todayTokens, totalTokens}', async () => {
    expect(await ctl(env, 'usage', 'show', '--account', 'acct_nobody')).toEqual({ exitCode: 0, json: { todayTokens: 0, totalTokens: 0 } });
  });
});
