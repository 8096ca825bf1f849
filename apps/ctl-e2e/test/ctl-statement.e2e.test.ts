import { execFile } from 'node:child_process';
import { createHash, generateKeyPairSync, sign } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GatewayUnderTest, RunningStack, startGateway } from '@gw/test-stack';
import { eventually, repoRoot } from '@gw/testing';

const monthName = (offset: number) => {
  const now = new Date();
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + offset, 1)).toISOString().slice(0, 7);
};

/** The script docs/statements.md gives holders, as the page shows it. */
function documentedScript(): string {
  const doc = readFileSync(join(repoRoot(), 'docs', 'statements.md'), 'utf8');
  const script = /```js\n(\/\/ verify-statement\.mjs[\s\S]*?)```/.exec(doc)?.[1];
  if (!script) throw new Error('docs/statements.md shows no verify-statement.mjs');
  return script;
}

/** Runs a node program; its exit code and what it printed. */
const run = (args: string[], env: NodeJS.ProcessEnv = process.env) =>
  new Promise<{ code: number; stdout: string }>((resolve) =>
    execFile(process.execPath, args, { env }, (err, stdout) => resolve({ code: err ? Number(err.code ?? 1) : 0, stdout })),
  );

const refusal = (code: string, message: string | RegExp = /./) => ({
  exitCode: 1,
  json: { error: { code, message: typeof message === 'string' ? message : expect.stringMatching(message) } },
});

/**
 * `ctl statement` on a real stack: a holder's statement of a month with their top-up and paid
 * requests, to stdout or a new file, the same bytes each time; `ctl statement verify` (and the
 * script of docs/statements.md) passes it with the published key, reaching no service, and fails
 * a copy with a line changed, a charge dropped or another signature, each with its code.
 */
describe('ctl statement (real stack)', () => {
  let gw: GatewayUnderTest;
  let stack: RunningStack;
  let dir: string;
  let accountId: string;
  const month = monthName(0);
  const file = () => join(dir, 'statement.csv');
  const keyFile = () => join(dir, 'statement-key.pem');
  const tampered = (name: string, edit: (lines: string[]) => string[]) => {
    const path = join(dir, name);
    writeFileSync(path, edit(readFileSync(file(), 'utf8').split('\n')).join('\n'));
    return path;
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ctl-statement-'));
    // A late-bill window of a minute: last month is final at once, whatever the day of this month.
    gw = await startGateway({ BILL_LATE_WINDOW_MS: '60000' });
    stack = gw.stack;
    accountId = ((await stack.ctl('account', 'create', '--name', 'Statement', '--balance', '5')).json as { accountId: string }).accountId;
    const { key } = (await stack.ctl('key', 'create', '--account', accountId)).json as { key: string };
    for (let i = 0; i < 2; i++) {
      const res = await fetch(`${stack.baseUrl}/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          model: 'vendor-v4-flash',
          max_tokens: 200,
          messages: [{ role: 'user', content: 'Hello [[sim:words=50]]' }],
        }),
      });
      expect(res.status).toBe(200);
      await res.arrayBuffer();
    }
  }, 90_000);

  afterAll(async () => {
    await gw?.stop();
    rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  it("prints the holder's statement of the month: the top-up and both requests, closing at the balance", async () => {
    const printed = await eventually(
      async () => (await stack.ctl('statement', '--account', accountId, '--month', month)).json as { movements: number },
      (json) => json.movements === 3,
      { timeoutMs: 15_000, what: 'the statement with both requests billed' },
    );
    const { balance } = (await stack.ctl('account', 'show', '--account', accountId)).json as { balance: number };
    expect(printed).toMatchObject({
      accountId,
      month,
      status: 'provisional',
      opening: 0,
      closing: balance,
      movements: 3,
      totals: { 'top-up': { count: 1, amount: 5 }, charge: { count: 2, amount: Number((balance - 5).toFixed(6)) } },
      keyId: expect.stringMatching(/^[0-9a-f]{16}$/),
    });
    const text = (printed as unknown as { statement: string }).statement;
    expect(text.split('\n')[1]).toBe(`${accountId},${month},${month}-01T00:00:00.000000Z,opening,,,,,,,,,,,,0.000000,provisional`);
    expect(
      text.match(/,charge,[^,]+,vendor-v4-flash,\d+,\d+,1\.000000,4\.000000,reported,complete,paid,-0\.\d{6},0\.000000,/g),
    ).toHaveLength(2);

    // The same books, the same bytes: to a new file.
    expect(await stack.ctl('statement', '--account', accountId, '--month', month, '--to', file())).toMatchObject({
      exitCode: 0,
      json: { file: file(), closing: balance, sha256: (printed as unknown as { sha256: string }).sha256 },
    });
    expect(readFileSync(file(), 'utf8')).toBe(text);
    // A month before the account's first movement, past its late-bill window: final, empty.
    expect(await stack.ctl('statement', '--account', accountId, '--month', monthName(-1))).toMatchObject({
      exitCode: 0,
      json: { status: 'final', opening: 0, closing: 0, movements: 0 },
    });
  });

  it('verifies the file with the published key, reaching no service, and with billing-service’s own', async () => {
    const { json } = await stack.ctl('statement', 'key');
    const { keyId, publicKey } = json as { keyId: string; publicKey: string };
    expect(publicKey).toMatch(/^-----BEGIN PUBLIC KEY-----\n/);
    writeFileSync(keyFile(), publicKey);
    const ok = { exitCode: 0, json: { ok: true, accountId, month, status: 'provisional', movements: 3, keyId } };
    expect(await stack.ctl('statement', 'verify', file(), '--key', keyFile())).toMatchObject(ok);
    expect(await stack.ctl('statement', 'verify', file())).toMatchObject(ok);
    // A holder's machine: no certificate of the gateway's, nothing listening where the services would be.
    const holder = await run([join(repoRoot(), 'dist', 'apps', 'ctl', 'main.js'), 'statement', 'verify', file(), '--key', keyFile()], {
      PATH: process.env.PATH,
      TLS_DIR: join(dir, 'no-certificates'),
      BILLING_ADDR: '127.0.0.1:9',
    });
    expect({ code: holder.code, json: JSON.parse(holder.stdout) }).toMatchObject({ code: 0, json: ok.json });
  });

  it('fails a copy with a line changed, a charge dropped, another signature or another key, each with its code', async () => {
    const changed = tampered('changed.csv', (lines) => lines.map((l) => l.replace(',vendor-v4-flash,', ',vendor-v4-pro,')));
    expect(await stack.ctl('statement', 'verify', changed, '--key', keyFile())).toEqual(
      refusal('STATEMENT_CHANGED', /^its lines are not the lines signed/),
    );
    // Lines: the header, the opening, the top-up, the two charges, the closing, the signature.
    expect(readFileSync(file(), 'utf8').split('\n')[3]).toContain(',charge,');
    const dropped = tampered('dropped.csv', (lines) => lines.filter((_, i) => i !== 3));
    expect(await stack.ctl('statement', 'verify', dropped, '--key', keyFile())).toEqual(refusal('STATEMENT_CHANGED', /does not follow/));
    // Signed again over the same lines, by a key that is not the service's.
    const other = generateKeyPairSync('ed25519');
    const otherSignature = (lines: string[]) => {
      const body = lines
        .slice(0, -2)
        .map((l) => `${l}\n`)
        .join('');
      const sig = sign(null, createHash('sha256').update(body).digest(), other.privateKey).toString('base64');
      const [signatureRow] = lines.slice(-2);
      return [...lines.slice(0, -2), signatureRow.replace(/sig=\S+$/, `sig=${sig}`), ''];
    };
    const forged = tampered('forged.csv', otherSignature);
    expect(await stack.ctl('statement', 'verify', forged, '--key', keyFile())).toEqual(
      refusal('BAD_SIGNATURE', /^its signature is not key [0-9a-f]{16}'s$/),
    );
    const otherKey = join(dir, 'other-key.pem');
    writeFileSync(otherKey, other.publicKey.export({ type: 'spki', format: 'pem' }));
    expect(await stack.ctl('statement', 'verify', file(), '--key', otherKey)).toEqual(refusal('BAD_SIGNATURE', /not with the key given/));
    const notOne = join(dir, 'not-one.csv');
    writeFileSync(notOne, 'request_id,amount\nr1,5\n');
    expect(await stack.ctl('statement', 'verify', notOne, '--key', keyFile())).toEqual(refusal('NOT_A_STATEMENT'));
  });

  it("runs docs/statements.md's script: OK for the file, NOT OK for each copy", async () => {
    const script = join(dir, 'verify-statement.mjs');
    writeFileSync(script, documentedScript());
    expect(await run([script, file(), keyFile()])).toEqual({ code: 0, stdout: 'OK\n' });
    for (const copy of ['changed.csv', 'dropped.csv', 'forged.csv']) {
      const checked = await run([script, join(dir, copy), keyFile()]);
      expect({ copy, ...checked }).toEqual({
        copy,
        code: 1,
        stdout: expect.stringMatching(/^NOT OK: not signed with this key, or changed;/),
      });
    }
    // A charge dropped: the balances after it stop following too.
    expect((await run([script, join(dir, 'dropped.csv'), keyFile()])).stdout).toContain('does not add up');
  });

  it('refuses a month that is not one or has not begun, a file that exists, an unknown account, and a file that cannot be read', async () => {
    expect(await stack.ctl('statement', '--account', accountId, '--month', '2026-13')).toEqual(refusal('INVALID_ARGUMENT'));
    expect(await stack.ctl('statement', '--account', accountId, '--month', monthName(1))).toEqual(
      refusal('INVALID_ARGUMENT', /has not begun/),
    );
    expect(await stack.ctl('statement', '--account', accountId, '--month', month, '--to', file())).toEqual(refusal('USAGE', /exists/));
    expect(await stack.ctl('statement', '--account', 'acct_nobody', '--month', month, '--to', join(dir, 'nobody.csv'))).toEqual(
      refusal('NOT_FOUND'),
    );
    expect(existsSync(join(dir, 'nobody.csv'))).toBe(false);
    const missing = join(dir, 'missing.csv');
    expect(await stack.ctl('statement', 'verify', missing)).toEqual(refusal('USAGE', `FILE ${missing} cannot be read: ENOENT`));
    expect(existsSync(missing)).toBe(false);
  });
});
