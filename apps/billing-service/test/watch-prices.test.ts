import { ClientDuplexStream, ServiceError, status } from '@grpc/grpc-js';
import { billingV1 } from '@gw/contracts';
import { BillingTestApps, BillingTestClient, startBillingTestApps } from './billing-test-db';

const DEADLINE_MS = 10_000;
const ACK_TIMEOUT_MS = 400;

type WatchStream = ClientDuplexStream<billingV1.WatchPricesRequest, billingV1.WatchPricesResponse>;

interface Watcher {
  stream: WatchStream;
  heard: billingV1.WatchPricesResponse[];
  /** The highest version this watcher has sent an acknowledgement of. */
  acked(): number;
  /** Resolves with the error that ended the stream. */
  ended: Promise<ServiceError>;
  /** Resolves once a message passes `test`. */
  next(test: (m: billingV1.WatchPricesResponse) => boolean): Promise<billingV1.WatchPricesResponse>;
}

/** A price watch as a quota-service replica holds it: each message acknowledged after `ackDelayMs`, or never. */
function watch(client: billingV1.BillingClient, options: { ackDelayMs?: number; acks?: boolean } = {}): Watcher {
  const stream = client.watchPrices();
  const heard: billingV1.WatchPricesResponse[] = [];
  const waiters: { test(m: billingV1.WatchPricesResponse): boolean; done(m: billingV1.WatchPricesResponse): void }[] = [];
  let acked = 0;
  stream.on('data', (m: billingV1.WatchPricesResponse) => {
    heard.push(m);
    for (const w of waiters.filter((each) => each.test(m))) {
      waiters.splice(waiters.indexOf(w), 1);
      w.done(m);
    }
    if (options.acks === false) return;
    setTimeout(() => {
      acked = Math.max(acked, m.version);
      stream.write({ version: m.version });
    }, options.ackDelayMs ?? 0);
  });
  const ended = new Promise<ServiceError>((resolve) => stream.on('error', resolve));
  return { stream, heard, acked: () => acked, ended, next: (test) => new Promise((done) => waiters.push({ test, done })) };
}

/**
 * billing.v1 WatchPrices with two billing-service replicas on one Postgres: every stream gets the
 * whole table, then each change with a growing version, whichever replica made it; SetPrice
 * returns once every watcher of both replicas acknowledged it, or once the ones that did not
 * within PRICE_ACK_TIMEOUT_MS have had their streams ended.
 */
describe('billing.v1 WatchPrices, two replicas on Postgres', () => {
  let t: BillingTestApps;
  let clients: BillingTestClient[] = [];
  const watchers: Watcher[] = [];
  let seq = 0;

  const open = (replica: number, options?: { ackDelayMs?: number; acks?: boolean }) => {
    const w = watch(clients[replica].streams, options);
    watchers.push(w);
    return w;
  };
  const setPrice = (replica: number, input = 1_000_000 + ++seq) => {
    const price = { model: 'vendor-v4-watched', inputMicroLydPerMillion: input, outputMicroLydPerMillion: 2 * input };
    return clients[replica].setPrice({ price }).then(() => price);
  };
  const tableVersion = async () =>
    Number((await t.db.query<{ version: string }>('SELECT version FROM billing.prices_version')).rows[0].version);

  beforeAll(async () => {
    t = await startBillingTestApps(2, { PRICE_ACK_TIMEOUT_MS: String(ACK_TIMEOUT_MS) }, DEADLINE_MS);
    clients = t.clients;
  });

  afterEach(() => {
    for (const w of watchers.splice(0)) w.stream.cancel();
  });

  afterAll(() => t?.close());

  it('sends the whole table on open, then every change from either replica, versions growing; SetPrice waits for every watcher', async () => {
    const streams = [open(0), open(0, { ackDelayMs: 100 }), open(1), open(1, { ackDelayMs: 300 })];
    const opened = await Promise.all(streams.map((s) => s.next(() => true)));
    const version = await tableVersion();
    for (const first of opened) {
      expect(first).toMatchObject({ version, full: true });
      expect(first.prices).toEqual(
        expect.arrayContaining([{ model: 'vendor-v4-flash', inputMicroLydPerMillion: 1_000_000, outputMicroLydPerMillion: 4_000_000 }]),
      );
    }

    for (const [n, replica] of [0, 1, 1, 0].entries()) {
      const started = Date.now();
      const price = await setPrice(replica);
      // Returned only after every watcher, on both replicas, acknowledged the change (the slowest 300 ms after it came).
      expect(Date.now() - started).toBeGreaterThanOrEqual(290);
      for (const s of streams) expect(s.acked()).toBe(version + n + 1);
      for (const s of streams) expect(s.heard.at(-1)).toEqual({ version: version + n + 1, full: false, prices: [price] });
    }
    for (const s of streams) expect(s.heard.map((m) => m.version)).toEqual([version, version + 1, version + 2, version + 3, version + 4]);

    const late = await open(1).next(() => true);
    expect(late).toMatchObject({ version: version + 4, full: true });
    expect(late.prices.find((p) => p.model === 'vendor-v4-watched')).toEqual(streams[0].heard.at(-1)?.prices[0]);
  });

  it('ends the stream of a watcher that never acknowledges, after the timeout; SetPrice then returns and the others have the change', async () => {
    const silent = open(1, { acks: false });
    const others = [open(0), open(1)];
    await Promise.all([silent, ...others].map((s) => s.next(() => true)));
    const started = Date.now();
    const price = await setPrice(0);
    expect(Date.now() - started).toBeGreaterThanOrEqual(ACK_TIMEOUT_MS - 10);
    expect(await silent.ended).toMatchObject({ code: status.UNAVAILABLE, details: expect.stringMatching(/not acknowledged/) });
    for (const s of others) expect(s.heard.at(-1)).toMatchObject({ full: false, prices: [price] });

    // With the silent one gone, the next change is back to the others' pace.
    const again = Date.now();
    await setPrice(1);
    // What tells the two paces apart: a change that waited for the silent watcher takes the whole ack timeout.
    expect(Date.now() - again).toBeLessThan(ACK_TIMEOUT_MS);
  });

  it('ends a stream that acknowledges a version it was never sent, with INVALID_ARGUMENT', async () => {
    const w = open(0, { acks: false });
    const first = await w.next(() => true);
    w.stream.write({ version: first.version + 1 });
    expect(await w.ended).toMatchObject({ code: status.INVALID_ARGUMENT });
  });

  it('ends every stream of a replica whose change feed is lost, and serves the whole table again once it is back', async () => {
    const before = open(1);
    await before.next(() => true);
    await t.db.query(
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND application_name LIKE 'gw-billing-prices:%' AND pid <> pg_backend_pid()",
    );
    expect(await before.ended).toMatchObject({ code: status.UNAVAILABLE });
    const price = await setPrice(0);
    // Back within a few seconds (the feed reconnects after 1 s), with the change made meanwhile.
    let table: billingV1.WatchPricesResponse | undefined;
    for (let tries = 0; !table && tries < 40; tries++) {
      const w = open(1);
      table = await Promise.race([
        w.next(() => true),
        w.ended.then(() => new Promise<undefined>((r) => setTimeout(() => r(undefined), 100))),
      ]);
    }
    expect(table).toMatchObject({ full: true, version: await tableVersion() });
    expect(table?.prices).toContainEqual(price);
  }, 15_000);
});
