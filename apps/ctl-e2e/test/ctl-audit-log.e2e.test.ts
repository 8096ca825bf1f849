import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client as PgClient } from 'pg';
import { GatewayUnderTest, RunningStack, startGateway } from '@gw/test-stack';

/** Runs one statement with psql, as an operator (or an intruder) at the database would. */
function psql(url: string, sql: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('psql', [url, '-v', 'ON_ERROR_STOP=1', '-c', sql], (err, stdout, stderr) =>
      err ? reject(new Error(`psql failed: ${stderr}`)) : resolve(stdout),
    );
  });
}

interface Chain {
  service: string;
  entries: number;
  ok: boolean;
  firstBad?: { seq: number; problem: string; detail: string };
}

describe('ctl audit-log verify (real stack, real CLI, psql)', () => {
  let gw: GatewayUnderTest;
  let stack: RunningStack;
  let pg: PgClient;

  beforeAll(async () => {
    gw = await startGateway();
    stack = gw.stack;
    pg = new PgClient({ connectionString: stack.env.DATABASE_URL });
    await pg.connect();
  }, 90_000);

  afterAll(async () => {
    await pg?.end();
    await gw?.stop();
  }, 60_000);

  const verify = async () => {
    const { json, exitCode } = await stack.ctl('audit-log', 'verify');
    return { exitCode, chains: (json as { chains: Chain[] }).chains };
  };

  it('passes an untouched trail of what the operator did, and keeps no key past its prefix', async () => {
    const { accountId } = (await stack.ctl('account', 'create', '--balance', '5')).json as { accountId: string };
    const created = await stack.ctl('key', 'create', '--account', accountId, '--reason', 'ticket 12');
    const { id, key } = created.json as { id: string; key: string };
    expect((await stack.ctl('key', 'revoke', '--id', id, '--reason', 'leaked in a log')).exitCode).toBe(0);
    expect((await stack.ctl('model', 'add', '--id', 'vendor-v4-audit', '--reason', 'pilot')).exitCode).toBe(0);
    expect(
      (await stack.ctl('account', 'grant-model', '--account', accountId, '--model', 'vendor-v4-audit', '--reason', 'pilot')).exitCode,
    ).toBe(0);
    expect(
      (await stack.ctl('price', 'set', '--model', 'vendor-v4-pro', '--input', '1', '--output', '2', '--reason', 'new tariff')).exitCode,
    ).toBe(0);
    expect((await stack.ctl('freetier', 'set', '--paused', 'true', '--reason', 'abuse wave')).exitCode).toBe(0);
    expect((await stack.ctl('key', 'revoke', '--id', id, '--reason')).json).toEqual({
      error: { code: 'USAGE', message: '--reason takes a value' },
    });

    expect(await verify()).toEqual({
      exitCode: 0,
      chains: [
        { service: 'auth-service', entries: 4, ok: true },
        { service: 'billing-service', entries: 3, ok: true },
      ],
    });
    const auth = await pg.query('SELECT action, actor, reason, details FROM auth.audit_log ORDER BY seq');
    expect(auth.rows).toEqual([
      {
        action: 'key-created',
        actor: 'ctl',
        reason: 'ticket 12',
        details: { keyId: id, prefix: key.slice(0, 12), name: expect.any(String) },
      },
      { action: 'key-revoked', actor: 'ctl', reason: 'leaked in a log', details: { keyId: id, prefix: key.slice(0, 12) } },
      { action: 'model-added', actor: 'ctl', reason: 'pilot', details: { model: 'vendor-v4-audit', vision: false } },
      { action: 'model-granted', actor: 'ctl', reason: 'pilot', details: { model: 'vendor-v4-audit' } },
    ]);
    const billing = await pg.query('SELECT action, actor, reason FROM billing.audit_log ORDER BY seq');
    expect(billing.rows).toEqual([
      { action: 'balance-changed', actor: 'ctl', reason: '' },
      { action: 'price-set', actor: 'ctl', reason: 'new tariff' },
      { action: 'free-tier-set', actor: 'ctl', reason: 'abuse wave' },
    ]);
    const everything = await pg.query<{ row: string }>(
      'SELECT a::text AS row FROM auth.audit_log a UNION ALL SELECT b::text FROM billing.audit_log b',
    );
    expect(everything.rows.filter((r) => r.row.includes(key.slice(0, 13)))).toEqual([]);
  });

  it('prints a checkpoint to keep, and fails verify --checkpoint once the tail is cut and the head moved back', async () => {
    const printed = await stack.ctl('audit-log', 'checkpoint');
    expect(printed.exitCode).toBe(0);
    const { checkpoints } = printed.json as { checkpoints: Array<{ service: string; seq: number; hash: string; mac: string; at: string }> };
    expect(checkpoints).toEqual([
      {
        service: 'auth-service',
        seq: 4,
        hash: expect.stringMatching(/^[0-9a-f]{64}$/),
        mac: expect.stringMatching(/^[0-9a-f]{64}$/),
        at: expect.any(String),
      },
      {
        service: 'billing-service',
        seq: 3,
        hash: expect.stringMatching(/^[0-9a-f]{64}$/),
        mac: expect.stringMatching(/^[0-9a-f]{64}$/),
        at: expect.any(String),
      },
    ]);
    const file = join(mkdtempSync(join(tmpdir(), 'checkpoint-')), 'checkpoint.json');
    writeFileSync(file, JSON.stringify(printed.json));
    expect((await stack.ctl('audit-log', 'verify', '--checkpoint', file)).exitCode).toBe(0);

    const last = (await pg.query('SELECT * FROM billing.audit_log WHERE seq = 3')).rows[0];
    await psql(stack.env.DATABASE_URL, 'DELETE FROM billing.audit_log WHERE seq = 3');
    await psql(stack.env.DATABASE_URL, 'UPDATE billing.audit_head SET seq = 2, hash = (SELECT hash FROM billing.audit_log WHERE seq = 2)');
    expect((await verify()).exitCode).toBe(0);
    const held = await stack.ctl('audit-log', 'verify', '--checkpoint', file);
    expect(held.exitCode).toBe(1);
    expect((held.json as { chains: Chain[] }).chains[1]).toMatchObject({
      service: 'billing-service',
      ok: false,
      checkpoint: { seq: 3 },
      firstBad: { seq: 3, problem: 'checkpoint-cut' },
    });
    expect((await stack.ctl('audit-log', 'verify', '--checkpoint', join(tmpdir(), 'no-such-checkpoint.json'))).json).toMatchObject({
      error: { code: 'USAGE' },
    });

    await pg.query(
      `INSERT INTO billing.audit_log (seq, at, account_id, action, details, actor, reason, prev_hash, hash, mac)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
      [last.seq, last.at, last.account_id, last.action, last.details, last.actor, last.reason, last.prev_hash, last.hash, last.mac],
    );
    await pg.query('UPDATE billing.audit_head SET seq = 3, hash = $1', [last.hash]);
    expect((await stack.ctl('audit-log', 'verify', '--checkpoint', file)).exitCode).toBe(0);
  });

  it('names the entry edited with psql, and exits non-zero', async () => {
    await psql(stack.env.DATABASE_URL, `UPDATE auth.audit_log SET details = jsonb_set(details, '{name}', '"innocent"') WHERE seq = 1`);
    expect(await verify()).toEqual({
      exitCode: 1,
      chains: [
        {
          service: 'auth-service',
          entries: 4,
          ok: false,
          firstBad: { seq: 1, problem: 'edited', detail: expect.stringContaining('entry 1') },
        },
        { service: 'billing-service', entries: 3, ok: true },
      ],
    });
  });

  it('names the entry after one deleted with psql', async () => {
    await psql(stack.env.DATABASE_URL, 'DELETE FROM billing.audit_log WHERE seq = 2');
    const { exitCode, chains } = await verify();
    expect(exitCode).toBe(1);
    expect(chains[1]).toEqual({
      service: 'billing-service',
      entries: 2,
      ok: false,
      firstBad: { seq: 3, problem: 'missing', detail: 'entry 2 is missing before it' },
    });
  });
});
