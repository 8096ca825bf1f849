import { status } from '@grpc/grpc-js';
import { billingV1, eventsV1 } from '@gw/contracts';
import { PgHolderEvents, START_CURSOR } from '@gw/service-kit';
import { eventually } from '@gw/testing';
import { BillingTestApps, BillingTestClient, codeOf, startBillingTestApps } from './billing-test-db';

const DEADLINE_MS = 5000;
/** A tenth of a LYD, micro-LYD: a bill at vendor-v4-flash's prices charges at most about 1.1 LYD. */
const UNIT = 100_000;

/**
 * billing-service's holder events over gRPC, on Postgres: each recorded in the transaction that
 * moves the money (none for a change refused, repeated or rolled back), the low-balance alert once
 * per fall below the threshold, the exhausted one once per top-up, and WatchHolderEvents serving
 * them from a cursor.
 */
describe('billing-service holder events', () => {
  let t: BillingTestApps;
  let client: BillingTestClient;
  let seq = 0;
  const events = new PgHolderEvents('billing');

  beforeAll(async () => {
    t = await startBillingTestApps(1, {}, DEADLINE_MS);
    client = t.clients[0];
    // A fault the test can ask for: an entry or a ledger row with this mark fails its transaction at its last statements.
    await t.db.query(`
      CREATE FUNCTION public.fail_marked() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'marked to fail'; END $$;
      CREATE TRIGGER fail_marked_entry BEFORE INSERT ON billing.balance_entries FOR EACH ROW
        WHEN (NEW.reason = 'fail here') EXECUTE FUNCTION public.fail_marked();
      CREATE TRIGGER fail_marked_link AFTER INSERT ON billing.link_rows FOR EACH ROW
        WHEN (NEW.request_id LIKE 'req_fail%') EXECUTE FUNCTION public.fail_marked();`);
  });
  afterAll(() => t?.close());

  const newAccount = () => `acct_events_${++seq}`;
  const topUp = (accountId: string, micro: number, note?: billingV1.ChangeNote) =>
    client.addBalance({ accountId, amountMicroLyd: micro, note });
  /** The account's events as kept, in order (kind and details), once none is held back behind a transaction of the server still running. */
  const eventsOf = async (accountId: string) => {
    const page = await eventually(
      () => events.after(t.db, START_CURSOR, 1000),
      (p) => !p.held,
      { what: 'no event held back' },
    );
    return page.events.filter((e) => e.accountId === accountId).map((e) => ({ kind: e.kind, details: e.details }));
  };
  /** A paid bill charging `chargeMicro`. */
  const bill = (accountId: string, chargeMicro: number, requestId = `req_events_${++seq}`): billingV1.Bill => ({
    requestId,
    accountId,
    model: 'vendor-v4-flash',
    paid: true,
    promptTokens: chargeMicro,
    completionTokens: 0,
    usageEstimated: false,
    heldMicroLyd: chargeMicro,
    inputMicroLydPerMillion: 1_000_000,
    outputMicroLydPerMillion: 4_000_000,
    chargeMicroLyd: chargeMicro,
  });
  const charge = async (accountId: string, chargeMicro: number) => {
    // The line must carry the charge: lend it first, as quota-service does.
    await client.extendCreditLine({ accountId, returnedTotalMicroLyd: 0, needMicroLyd: 0 });
    const { outcomes } = await client.applyBills({ bills: [bill(accountId, chargeMicro)], returns: [] });
    expect(outcomes[0]).toMatchObject({ applied: true });
  };
  const ask = (accountId: string, fields: Partial<billingV1.ExtendCreditLineRequest>) =>
    client.extendCreditLine({ accountId, returnedTotalMicroLyd: 0, needMicroLyd: 0, ...fields });

  it('records a top-up credited, once per idempotency key, and nothing for a change refused', async () => {
    const accountId = newAccount();
    await topUp(accountId, 5 * UNIT, { reason: 'paid by card', idempotencyKey: `key-${accountId}` });
    await topUp(accountId, 5 * UNIT, { reason: 'paid by card', idempotencyKey: `key-${accountId}` });
    expect(await codeOf(topUp(accountId, -6 * UNIT))).toBe(status.FAILED_PRECONDITION);
    await topUp(accountId, -1 * UNIT);
    expect(await eventsOf(accountId)).toEqual([{ kind: 'top-up-credited', details: { amountMicro: 5 * UNIT, balanceMicro: 5 * UNIT } }]);
  });

  it('records nothing when the transaction that moves the money rolls back', async () => {
    const accountId = newAccount();
    await topUp(accountId, 10 * UNIT);
    await client.setLowBalanceThreshold({ accountId, thresholdMicroLyd: 9 * UNIT, keepExisting: false, setBy: 'holder@example.com' });
    expect(await codeOf(topUp(accountId, 2 * UNIT, { reason: 'fail here', idempotencyKey: '' }))).toBe(status.INTERNAL);
    await client.extendCreditLine({ accountId, returnedTotalMicroLyd: 0, needMicroLyd: 0 });
    expect(await codeOf(client.applyBills({ bills: [bill(accountId, 2 * UNIT, `req_fail_${accountId}`)], returns: [] }))).toBe(
      status.INTERNAL,
    );
    expect(await eventsOf(accountId)).toEqual([{ kind: 'top-up-credited', details: { amountMicro: 10 * UNIT, balanceMicro: 10 * UNIT } }]);
    expect((await client.getBalance({ accountId })).balanceMicroLyd).toBe(10 * UNIT);
  });

  it('tells of a low balance once when it falls to the threshold, again only after it went back above', async () => {
    const accountId = newAccount();
    await topUp(accountId, 10 * UNIT);
    await client.setLowBalanceThreshold({ accountId, thresholdMicroLyd: 5 * UNIT, keepExisting: false, setBy: 'holder@example.com' });
    await charge(accountId, 5 * UNIT);
    await charge(accountId, 1 * UNIT);
    expect(await client.getLowBalanceThreshold({ accountId })).toEqual({
      thresholdMicroLyd: 5 * UNIT,
      balanceMicroLyd: 4 * UNIT,
      low: true,
    });
    // Lent whole to the line, the balance can be topped up but not taken from: back above, then below again.
    await topUp(accountId, 2 * UNIT);
    await charge(accountId, 2 * UNIT);
    expect((await eventsOf(accountId)).map((e) => e.kind)).toEqual(['top-up-credited', 'low-balance', 'top-up-credited', 'low-balance']);
    expect((await eventsOf(accountId))[1].details).toEqual({ balanceMicro: 5 * UNIT, thresholdMicro: 5 * UNIT });
    expect((await eventsOf(accountId))[3].details).toEqual({ balanceMicro: 4 * UNIT, thresholdMicro: 5 * UNIT });
  });

  it('makes no low-balance event for a threshold set above the balance, nor for a top-up that leaves it below', async () => {
    const accountId = newAccount();
    await topUp(accountId, 3 * UNIT);
    await client.setLowBalanceThreshold({ accountId, thresholdMicroLyd: 5 * UNIT, keepExisting: false, setBy: '' });
    await topUp(accountId, 1 * UNIT);
    await charge(accountId, 1 * UNIT);
    expect((await eventsOf(accountId)).map((e) => e.kind)).toEqual(['top-up-credited', 'top-up-credited']);
  });

  it('tells once that the balance can no longer pay, again only after a top-up, and never an account that never had money', async () => {
    const accountId = newAccount();
    await topUp(accountId, 1 * UNIT);
    // Covered: the line grew by what the request lacked.
    await ask(accountId, { grantedTotalMicroLyd: 0, uncoveredMicroLyd: 1 * UNIT });
    // An older quota-service says nothing of its request: not judged.
    await ask(accountId, {});
    await ask(accountId, { grantedTotalMicroLyd: 1 * UNIT, uncoveredMicroLyd: 1 });
    await ask(accountId, { grantedTotalMicroLyd: 1 * UNIT, uncoveredMicroLyd: 2 * UNIT });
    await topUp(accountId, 1 * UNIT);
    // The top-up is lent whole, but the request lacked more.
    await ask(accountId, { grantedTotalMicroLyd: 1 * UNIT, uncoveredMicroLyd: 3 * UNIT });
    const never = newAccount();
    await ask(never, { grantedTotalMicroLyd: 0, uncoveredMicroLyd: 1 });
    expect(await eventsOf(accountId)).toEqual([
      { kind: 'top-up-credited', details: { amountMicro: 1 * UNIT, balanceMicro: 1 * UNIT } },
      { kind: 'balance-exhausted', details: { balanceMicro: 1 * UNIT } },
      { kind: 'top-up-credited', details: { amountMicro: 1 * UNIT, balanceMicro: 2 * UNIT } },
      { kind: 'balance-exhausted', details: { balanceMicro: 2 * UNIT } },
    ]);
    expect(await eventsOf(never)).toEqual([]);
  });

  it('judges each line of ExtendCreditLines on its own, in one transaction', async () => {
    const [short, covered] = [newAccount(), newAccount()];
    await topUp(short, 1 * UNIT);
    await topUp(covered, 1 * UNIT);
    const { outcomes } = await client.extendCreditLines({
      lines: [
        { accountId: short, returnedTotalMicroLyd: 0, needMicroLyd: 0, grantedTotalMicroLyd: 0, uncoveredMicroLyd: 2 * UNIT },
        { accountId: covered, returnedTotalMicroLyd: 0, needMicroLyd: 0, grantedTotalMicroLyd: 0, uncoveredMicroLyd: 1 * UNIT },
      ],
    });
    expect(outcomes.map((o) => o.errorCode)).toEqual([0, 0]);
    expect((await eventsOf(short)).map((e) => e.kind)).toEqual(['top-up-credited', 'balance-exhausted']);
    expect((await eventsOf(covered)).map((e) => e.kind)).toEqual(['top-up-credited']);
  });

  it('keeps a threshold already set when asked to (the console handing its thresholds over), and refuses one out of bounds', async () => {
    const accountId = newAccount();
    const set = (thresholdMicroLyd: number | undefined, keepExisting: boolean) =>
      client.setLowBalanceThreshold({ accountId, thresholdMicroLyd, keepExisting, setBy: 'holder@example.com' });
    expect(await set(2 * UNIT, true)).toEqual({ thresholdMicroLyd: 2 * UNIT });
    expect(await set(3 * UNIT, true)).toEqual({ thresholdMicroLyd: 2 * UNIT });
    expect(await set(3 * UNIT, false)).toEqual({ thresholdMicroLyd: 3 * UNIT });
    expect(await client.getLowBalanceThreshold({ accountId })).toEqual({ thresholdMicroLyd: 3 * UNIT, balanceMicroLyd: 0, low: true });
    expect(await set(undefined, false)).toEqual({});
    expect(await client.getLowBalanceThreshold({ accountId })).toEqual({ balanceMicroLyd: 0, low: false });
    expect(await codeOf(set(-1, false))).toBe(status.INVALID_ARGUMENT);
    expect(await codeOf(set(2 ** 53, false))).toBe(status.INVALID_ARGUMENT);
  });

  it('streams the events from a cursor, then each new one as it commits', async () => {
    const accountId = newAccount();
    await topUp(accountId, 1 * UNIT);
    await topUp(accountId, 2 * UNIT);
    const received: eventsV1.HolderEvent[] = [];
    const follow = (after: string) => {
      const stream = client.streams.watchHolderEvents({ after });
      stream.on('data', (m: billingV1.WatchHolderEventsResponse) => received.push(...m.events.filter((e) => e.accountId === accountId)));
      stream.on('error', () => undefined);
      return stream;
    };
    const first = follow('');
    await eventually(
      () => received.length,
      (n) => n === 2,
      { what: 'the two top-ups' },
    );
    first.cancel();
    const resumeAfter = received[0].cursor;
    received.length = 0;
    const second = follow(resumeAfter);
    await eventually(
      () => received.length,
      (n) => n === 1,
      { what: 'the second top-up again' },
    );
    await topUp(accountId, 3 * UNIT);
    await eventually(
      () => received.length,
      (n) => n === 2,
      { what: 'the new top-up' },
    );
    second.cancel();
    expect(received.map((e) => [e.kind, JSON.parse(e.detailsJson)])).toEqual([
      [eventsV1.HolderEventKind.HOLDER_EVENT_KIND_TOP_UP_CREDITED, { amountMicro: 2 * UNIT, balanceMicro: 3 * UNIT }],
      [eventsV1.HolderEventKind.HOLDER_EVENT_KIND_TOP_UP_CREDITED, { amountMicro: 3 * UNIT, balanceMicro: 6 * UNIT }],
    ]);
    const refused = client.streams.watchHolderEvents({ after: 'not a cursor' });
    const code = await new Promise((resolve) => refused.on('error', (err: { code: number }) => resolve(err.code)));
    expect(code).toBe(status.INVALID_ARGUMENT);
  });
});
