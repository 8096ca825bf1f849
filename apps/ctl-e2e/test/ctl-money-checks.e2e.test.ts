import { Client as PgClient } from 'pg';
import { GatewayUnderTest, RunningStack, startGateway } from '@gw/test-stack';
import Redis from 'ioredis';
import { eventually } from '@gw/testing';

const refusal = (code: string) => ({ exitCode: 1, json: { error: { code, message: expect.any(String) } } });

describe('ctl refuses what would be wrong money or identity (real stack)', () => {
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

  const newAccount = async (...args: string[]) => ((await stack.ctl('account', 'create', ...args)).json as { accountId: string }).accountId;
  const rows = async (sql: string, value: string) => (await pg.query(sql, [value])).rowCount;

  it('refuses a balance past 9007199254.740991 LYD; the account keeps its balance and still shows', async () => {
    const accountId = await newAccount('--balance', '9007199254.740991');
    expect(await stack.ctl('balance', 'add', '--account', accountId, '--amount', '0.000001')).toEqual(refusal('OUT_OF_RANGE'));
    const shown = await stack.ctl('account', 'show', '--account', accountId);
    expect(shown).toMatchObject({ exitCode: 0, json: { accountId } });
    expect((await pg.query('SELECT balance_micro::text AS b FROM billing.balances WHERE account_id = $1', [accountId])).rows).toEqual([
      { b: '9007199254740991' },
    ]);
    expect(await stack.ctl('balance', 'add', '--account', accountId, '--amount', '-9007199254.740991')).toEqual({
      exitCode: 0,
      json: { balance: 0 },
    });
  });

  it('refuses amounts that are not whole micro-LYD or beyond the range, before calling anything', async () => {
    const accountId = await newAccount();
    for (const amount of ['9007199254.740992', '1.0000001', '1e3', '0x10', 'NaN']) {
      expect(await stack.ctl('balance', 'add', '--account', accountId, '--amount', amount)).toEqual(refusal('USAGE'));
    }
    expect(await stack.ctl('account', 'create', '--balance', '-1')).toEqual(refusal('USAGE'));
    expect(await rows('SELECT 1 FROM billing.balances WHERE account_id = $1', accountId)).toBe(0);
  });

  it('makes a balance change once under an idempotency key, however many runs at once, and keeps its reason', async () => {
    const accountId = await newAccount();
    const args = [
      'balance',
      'add',
      '--account',
      accountId,
      '--amount',
      '2.5',
      '--reason',
      'invoice 99 paid',
      '--idempotency-key',
      `inv-99-${accountId}`,
    ];
    const runs = await Promise.all(Array.from({ length: 8 }, () => stack.ctl(...args)));
    expect(runs).toEqual(Array.from({ length: 8 }, () => ({ exitCode: 0, json: { balance: 2.5 } })));
    expect(await stack.ctl('balance', 'add', '--account', accountId, '--amount', '3', '--idempotency-key', `inv-99-${accountId}`)).toEqual(
      refusal('ALREADY_EXISTS'),
    );
    const { rows } = await pg.query(
      'SELECT amount_micro::text AS amount, kind, reason, made_by FROM billing.balance_entries WHERE account_id = $1',
      [accountId],
    );
    expect(rows).toEqual([{ amount: '2500000', kind: 'top-up', reason: 'invoice 99 paid', made_by: 'ctl' }]);
  });

  it('audits the books and the store: ok after paid requests, and names exactly what was corrupted, exiting 1', async () => {
    const accountId = await newAccount('--balance', '5');
    const { key } = (await stack.ctl('key', 'create', '--account', accountId)).json as { key: string };
    for (let i = 0; i < 3; i++) {
      const res = await fetch(`${stack.baseUrl}/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'vendor-v4-flash', max_tokens: 8, messages: [{ role: 'user', content: 'hi' }] }),
      });
      expect(res.status).toBe(200);
      await res.arrayBuffer();
    }
    const charged = async () =>
      Number((await pg.query('SELECT count(*) AS n FROM billing.ledger WHERE account_id = $1 AND paid', [accountId])).rows[0].n);
    await eventually(charged, (n) => n >= 3, { intervalMs: 100 });
    expect(await stack.ctl('audit')).toEqual({
      exitCode: 0,
      json: {
        ok: true,
        books: { accountsChecked: expect.any(Number) },
        store: { checked: true, accountsChecked: expect.any(Number), repairingLines: [] },
        violations: [],
      },
    });
    const failed = (...violations: Record<string, unknown>[]) => ({
      exitCode: 1,
      json: {
        ok: false,
        books: { accountsChecked: expect.any(Number) },
        store: { checked: true, accountsChecked: expect.any(Number), repairingLines: [] },
        violations,
      },
    });

    // A hold in Redis that no running request's lease owns: an admission record holding money (its
    // held total moved with it) with no lease.
    const redisClient = new Redis(stack.env.REDIS_URL);
    const accountKey = `${stack.env.REDIS_KEY_PREFIX}{${accountId}}`;
    const [credit, admissions] = [`${accountKey}:credit`, `${accountKey}:admissions`];
    try {
      await redisClient.multi().hset(admissions, 'req_orphan', '{"hold":{"amountMicro":700}}').hincrby(credit, 'hd', 700).exec();
      expect(await stack.ctl('audit')).toEqual(
        failed({ kind: 'hold-without-lease', accountId, billingId: 'req_orphan', detail: 'holds 700 micro-LYD with no lease' }),
      );
      await redisClient.multi().hdel(admissions, 'req_orphan').hincrby(credit, 'hd', -700).exec();
      expect((await stack.ctl('audit')).exitCode).toBe(0);
    } finally {
      redisClient.disconnect();
    }

    // An entry deleted: the top-up of 5 LYD the account was created with; its link in the audit chain stays.
    const { rows: entries } = await pg.query('DELETE FROM billing.balance_entries WHERE account_id = $1 RETURNING *', [accountId]);
    expect(entries).toHaveLength(1);
    expect(await stack.ctl('audit')).toEqual(
      failed(
        {
          kind: 'balance-not-entries',
          accountId,
          detail: expect.stringMatching(/^balance \d+ micro-LYD, entries less charges -\d+$/),
        },
        {
          kind: 'link-without-entry',
          accountId,
          detail: expect.stringMatching(/^link \d+ covers balance entry \d+ of 5000000 micro-LYD, which is gone or changed$/),
        },
      ),
    );
    const columns = Object.keys(entries[0]);
    await pg.query(
      `INSERT INTO billing.balance_entries (${columns.join(', ')}) VALUES (${columns.map((_, i) => `$${i + 1}`).join(', ')})`,
      columns.map((c) => entries[0][c]),
    );
    // A balance moved without an entry.
    await pg.query('UPDATE billing.balances SET balance_micro = balance_micro + 7 WHERE account_id = $1', [accountId]);
    expect(await stack.ctl('audit')).toEqual(
      failed({
        kind: 'balance-not-entries',
        accountId,
        detail: expect.stringMatching(/^balance \d+ micro-LYD, entries less charges \d+$/),
      }),
    );
    await pg.query('UPDATE billing.balances SET balance_micro = balance_micro - 7 WHERE account_id = $1', [accountId]);

    expect(
      (await stack.ctl('balance', 'add', '--account', accountId, '--amount', '-0.000001', '--reason', 'takes the line back')).exitCode,
    ).toBe(0);
    // A charge made twice: a second ledger row of a billing id, and the balance charged again.
    const { rows } = await pg.query<{ request_id: string; amount_micro: string }>(
      'SELECT request_id, amount_micro::text FROM billing.ledger WHERE account_id = $1 AND paid LIMIT 1',
      [accountId],
    );
    await pg.query(
      `INSERT INTO billing.ledger (request_id, account_id, model, prompt_tokens, completion_tokens, input_micro_per_million, output_micro_per_million,
         amount_micro, paid, usage_estimated, held_micro, shortfall_micro, request_at)
       SELECT request_id, account_id, model, prompt_tokens, completion_tokens, input_micro_per_million, output_micro_per_million,
         amount_micro, paid, usage_estimated, held_micro, shortfall_micro, request_at + interval '1 second'
       FROM billing.ledger WHERE request_id = $1`,
      [rows[0].request_id],
    );
    // Charged from the balance (its line given back first, by a negative balance add, so that the
    // lines here and in Redis still agree: only the charge is wrong).
    await pg.query('UPDATE billing.balances SET balance_micro = balance_micro - $2 WHERE account_id = $1', [
      accountId,
      rows[0].amount_micro,
    ]);
    expect(await stack.ctl('audit')).toEqual(
      failed({ kind: 'billed-twice', accountId, billingId: rows[0].request_id, detail: '2 ledger rows' }),
    );
  });

  it('refuses a balance for an account that does not exist, writing nothing', async () => {
    expect(await stack.ctl('balance', 'add', '--account', 'acct_nobody', '--amount', '5')).toEqual(refusal('NOT_FOUND'));
    expect(await rows('SELECT 1 FROM billing.balances WHERE account_id = $1', 'acct_nobody')).toBe(0);
  });

  it('refuses a price for a model the catalogue does not have, and prices one only granted accounts use', async () => {
    expect(await stack.ctl('price', 'set', '--model', 'vendor-v9-ghost', '--input', '1', '--output', '2')).toEqual(refusal('NOT_FOUND'));
    expect(await rows('SELECT 1 FROM billing.prices WHERE model = $1', 'vendor-v9-ghost')).toBe(0);
    expect((await stack.ctl('model', 'add', '--id', 'vendor-v4-private')).exitCode).toBe(0);
    expect(await stack.ctl('price', 'set', '--model', 'vendor-v4-private', '--input', '1', '--output', '2')).toEqual({
      exitCode: 0,
      json: { model: 'vendor-v4-private', input: 1, output: 2 },
    });
  });

  it('refuses an account name over 64 characters or with control characters', async () => {
    expect(await stack.ctl('account', 'create', '--name', 'n'.repeat(65))).toEqual(refusal('INVALID_ARGUMENT'));
    expect(await stack.ctl('account', 'create', '--name', 'two\nlines')).toEqual(refusal('INVALID_ARGUMENT'));
    const accountId = await newAccount('--name', 'n'.repeat(64));
    expect((await stack.ctl('account', 'show', '--account', accountId)).json).toMatchObject({ name: 'n'.repeat(64) });
  });

  it('refuses an empty idempotency key, an amount of 0 and a flag balance add does not take, changing nothing', async () => {
    const accountId = await newAccount();
    for (const wrong of [
      ['--amount', '5', '--idempotency-key', ''],
      ['--amount', '0'],
      ['--amount', '0', '--idempotency-key', 'zero-1'],
      ['--amount', '5', '--idempotency', 'k-1'],
    ])
      expect(await stack.ctl('balance', 'add', '--account', accountId, ...wrong)).toEqual(refusal('USAGE'));
    expect(await stack.ctl('audit', '--extra', '1')).toEqual(refusal('USAGE'));
    expect((await stack.ctl('account', 'show', '--account', accountId)).json).toMatchObject({ balance: 0 });
    expect(await rows('SELECT 1 FROM billing.balance_entries WHERE account_id = $1', accountId)).toBe(0);
  });

  it('refuses a flag given twice, changing nothing', async () => {
    const accountId = await newAccount();
    expect(await stack.ctl('balance', 'add', '--account', accountId, '--amount', '1', '--amount', '1000')).toEqual(refusal('USAGE'));
    expect((await stack.ctl('account', 'show', '--account', accountId)).json).toMatchObject({ balance: 0 });
  });
});
