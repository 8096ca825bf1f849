import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GatewayUnderTest, RunningStack, startGateway } from '@gw/test-stack';
import { auditChaos, AuditAccount, edgeRequestLines, NOTHING_WRONG } from './chaos-audit';
import { BooksReader } from './chaos-books';
import { Fault, injectFaults } from './chaos-faults';
import { createLoadAccount, FAULT_STACK_ENV, LoadAccount, runLoad } from './chaos-load';
import { chaosFigures } from './chaos-report';

const PAID_ACCOUNTS = 9;
const FREE_ACCOUNTS = 5;
const PAID_BALANCE_LYD = '2';

// Recovery timers shortened so that what a crash leaves behind is recovered within the drain
// (FAULT_STACK_ENV); unknown variables are ignored.
const STACK_ENV = FAULT_STACK_ENV;

// Each app crashes once, in turn, while the load runs; edge replica 0 only, so replica 1 serves on.
const FAULTS: Fault[] = [
  { app: 'edge', replica: 0, atMs: 5_000 },
  { app: 'auth-service', atMs: 12_000 },
  { app: 'quota-service', atMs: 19_000 },
  { app: 'billing-service', atMs: 26_000 },
];

describe('chaos: nothing lost, nothing leaked', () => {
  let gw: GatewayUnderTest;
  let stack: RunningStack;
  let books: BooksReader;

  beforeAll(async () => {
    gw = await startGateway(STACK_ENV, { replicas: { edge: 2 } });
    stack = gw.stack;
    books = await BooksReader.open(stack.env.DATABASE_URL, stack.env.REDIS_URL, stack.env.REDIS_KEY_PREFIX);
  }, 90_000);

  afterAll(async () => {
    await books?.close();
    await gw?.stop();
  }, 90_000);

  const account = (paid: boolean): Promise<LoadAccount> => createLoadAccount(stack, paid, PAID_BALANCE_LYD);

  it('keeps every bill and frees every hold and place while each service is SIGKILLed under mixed load', async () => {
    const accounts = await Promise.all(Array.from({ length: PAID_ACCOUNTS + FREE_ACCOUNTS }, (_, i) => account(i < PAID_ACCOUNTS)));
    const ids = accounts.map((a) => a.accountId);
    const before = await books.read(ids);
    const audited: AuditAccount[] = accounts.map((a) => ({
      accountId: a.accountId,
      paid: a.paid,
      startMicro: before.balances.get(a.accountId)?.balanceMicro ?? 0,
    }));

    // 2 callers per account, one request every 7 s or more each: about 17 a minute per account
    // (under 30) and at most 2 of its 3 places, so a place a crash leaves taken rarely refuses one.
    const load = runLoad({
      baseUrls: stack.baseUrls,
      accounts,
      lanesPerAccount: 2,
      laneSpacingMs: 7_000,
      durationMs: 36_000,
      giveUpMs: 60_000,
    });
    // The load ends by itself; it is awaited even when a restart fails, so no caller outlives the test.
    const faults = await injectFaults(stack, load, FAULTS, 1_500).finally(() => load.done);

    const { books: after, drained } = await books.drained(ids, 90_000);
    const lines = edgeRequestLines(stack.logs);
    const findings = auditChaos(audited, load.records, lines, after);
    console.log(
      `chaos figures\n${JSON.stringify(chaosFigures({ accounts: audited, records: load.records, lines, faults, books: after, drained, findings, logs: stack.logs }), null, 2)}`,
    );

    if (JSON.stringify(findings) !== JSON.stringify(NOTHING_WRONG)) {
      // What the processes logged, kept for the post-mortem, with the lines of the requests found wrong.
      const file = join(tmpdir(), `chaos-${Date.now()}.log`);
      writeFileSync(file, stack.logs.join('\n'));
      const ids = findings.loggedRowMismatches.flatMap((m) => [m.requestId, lines.get(m.requestId)?.billingId ?? m.requestId]);
      console.log(
        `chaos logs in ${file}; the requests found wrong:\n${stack.logs.filter((l) => ids.some((id) => l.includes(id))).join('\n')}`,
      );
    }
    // The run is a fair test only if every crash hit requests in flight and the load got through.
    expect(faults.map((f) => f.inFlightAtKill > 0)).toEqual(FAULTS.map(() => true));
    expect(load.records.filter((r) => r.delivered && r.paid).length).toBeGreaterThan(0);
    expect(load.records.filter((r) => r.delivered && !r.paid).length).toBeGreaterThan(0);
    expect(findings).toEqual(NOTHING_WRONG);
    expect(drained).toBe(true);
    // The operator's audit of the books and the store agrees: every rule holds after the faults.
    expect(await stack.ctl('audit')).toEqual({
      exitCode: 0,
      json: {
        ok: true,
        books: { accountsChecked: expect.any(Number) },
        store: { checked: true, accountsChecked: expect.any(Number), repairingLines: [] },
        violations: [],
      },
    });
  }, 240_000);
});
