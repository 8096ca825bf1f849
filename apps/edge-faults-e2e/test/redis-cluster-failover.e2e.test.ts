import { crc32 } from 'node:zlib';
import Redis from 'ioredis';
import { Client as PgClient } from 'pg';
import { eventually, RunningStack, startStack } from '@gw/test-stack';
import { createTestDatabase, startRedisCluster, TestDatabase, TestRedisCluster } from '@gw/testing';
import { auditChaos, AuditAccount, edgeRequestLines, NOTHING_WRONG } from './chaos-audit';
import { BooksReader } from './chaos-books';
import { createLoadAccount, FAULT_STACK_ENV, LoadAccount, runLoad } from './chaos-load';

const KEY_PREFIX = 'gw-failover:';
const PAID_ACCOUNTS = 4;
const FREE_ACCOUNTS = 2;
const ROLE_TIMEOUT_MS = 15_000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One node's client for one call; closed after. */
async function onNode<T>(node: string, call: (client: Redis) => Promise<T>): Promise<T> {
  const client = new Redis(`redis://${node}/0`, { maxRetriesPerRequest: 1, connectTimeout: 2_000 });
  try {
    return await call(client);
  } finally {
    client.disconnect();
  }
}

/** The master serving `slot` and its replicas, as a live node sees the cluster. */
async function servingSlot(liveNode: string, slot: number): Promise<{ master: string; replicas: string[] }> {
  const lines = ((await onNode(liveNode, (c) => c.cluster('NODES'))) as string)
    .trim()
    .split('\n')
    .map((l) => l.split(' '));
  const address = (fields: string[]) => fields[1].split('@')[0];
  const master = lines.find(
    (f) =>
      f[2].includes('master') &&
      !f[2].includes('fail') &&
      f.slice(8).some((range) => {
        const [lo, hi = lo] = range.split('-').map(Number);
        return slot >= lo && slot <= hi;
      }),
  );
  if (!master) throw new Error(`no live master serves slot ${slot}`);
  return { master: address(master), replicas: lines.filter((f) => f[3] === master[0] && !f[2].includes('fail')).map(address) };
}

/** Waits until `node` says it is a master; how long that took, ms. */
async function untilMaster(node: string, since: number): Promise<number> {
  const role = async () => ((await onNode(node, (c) => c.role()).catch(() => undefined)) as string[] | undefined)?.[0];
  await eventually(role, (r) => r === 'master', { timeoutMs: ROLE_TIMEOUT_MS, what: `${node} a master` });
  return Date.now() - since;
}

/** Replication bytes a replica has not yet applied of its master's stream. */
async function replicaLagBytes(master: string, replica: string): Promise<number> {
  const offset = (info: string, field: string) => Number(new RegExp(`${field}:(\\d+)`).exec(info)?.[1] ?? NaN);
  const [m, r] = await Promise.all([onNode(master, (c) => c.info('replication')), onNode(replica, (c) => c.info('replication'))]);
  return offset(m, 'master_repl_offset') - offset(r, 'slave_repl_offset');
}

/**
 * Failover of the Redis Cluster under quota-service: paid and free load from 2
 * edges; a manual CLUSTER FAILOVER of the master holding a busy account's shard, then a SIGKILL of
 * its new master (the old one, now its replica, is promoted). Afterwards every reply that delivered
 * text is billed exactly once, no balance below zero, nothing held, no place left.
 */
describe('Redis Cluster failover under load: every delivered reply billed once', () => {
  let cluster: TestRedisCluster;
  let db: TestDatabase;
  let stack: RunningStack;
  let books: BooksReader;
  let pg: PgClient;

  beforeAll(async () => {
    [db, cluster] = await Promise.all([createTestDatabase(), startRedisCluster()]);
    stack = await startStack({
      databaseUrl: db.url,
      redisClusterNodes: cluster.nodes,
      redisKeyPrefix: KEY_PREFIX,
      env: FAULT_STACK_ENV,
      replicas: { edge: 2 },
    });
    books = await BooksReader.openOnCluster(db.url, cluster.nodes, KEY_PREFIX);
    pg = new PgClient({ connectionString: db.url });
    await pg.connect();
  }, 120_000);

  afterAll(async () => {
    await pg?.end();
    await books?.close();
    await stack?.stop();
    await Promise.all([db?.drop(), cluster?.stop()]);
  }, 90_000);

  it('takes a manual failover and a master killed mid-load without losing or repeating a bill', async () => {
    const accounts: LoadAccount[] = await Promise.all(
      Array.from({ length: PAID_ACCOUNTS + FREE_ACCOUNTS }, (_, i) => createLoadAccount(stack, i < PAID_ACCOUNTS, '1')),
    );
    const ids = accounts.map((a) => a.accountId);
    const before = await books.read(ids);
    const audited: AuditAccount[] = accounts.map((a) => ({
      accountId: a.accountId,
      paid: a.paid,
      startMicro: before.balances.get(a.accountId)?.balanceMicro ?? 0,
    }));
    const busyKey = `${KEY_PREFIX}{s${crc32(ids[0]) % 64}}:a:${ids[0]}:places`;
    const slot = Number(await onNode(cluster.nodes[0], (c) => c.cluster('KEYSLOT', busyKey)));
    const first = await servingSlot(cluster.nodes[0], slot);
    const survivor = cluster.nodes.find((n) => n !== first.master && !first.replicas.includes(n)) as string;

    // 2 callers per account, one request every 5 s or more each: 24 a minute per account, under 30.
    const load = runLoad({
      baseUrls: stack.baseUrls,
      accounts,
      lanesPerAccount: 2,
      laneSpacingMs: 5_000,
      durationMs: 18_000,
      giveUpMs: 40_000,
    });
    const figures: Record<string, number> = {};
    try {
      // The failover and the kill fall at set times of the load: the scenario.
      await sleep(4_000);
      figures.inFlightAtFailover = load.inFlight();
      let since = Date.now();
      await onNode(first.replicas[0], (c) => c.cluster('FAILOVER'));
      figures.manualFailoverMs = await untilMaster(first.replicas[0], since);

      await sleep(5_000);
      const second = await servingSlot(survivor, slot);
      expect(second.master).toBe(first.replicas[0]);
      figures.replicaLagBytesAtKill = await replicaLagBytes(second.master, first.master);
      figures.inFlightAtKill = load.inFlight();
      since = Date.now();
      await cluster.kill(second.master);
      figures.promotedAfterKillMs = await untilMaster(first.master, since);
    } finally {
      await load.done;
    }

    const { books: after, drained } = await books.drained(ids, 60_000);
    const findings = auditChaos(audited, load.records, edgeRequestLines(stack.logs), after);
    const negative = Number(
      (await pg.query<{ n: string }>('SELECT count(*) AS n FROM billing.balances WHERE account_id = ANY($1) AND balance_micro < 0', [ids]))
        .rows[0].n,
    );
    const delivered = load.records.filter((r) => r.delivered);
    const refused = load.records.filter((r) => (r.status ?? 0) >= 500 || r.noAnswer !== undefined).length;
    const logged = (msg: string) => stack.logs.filter((line) => line.includes(msg)).length;
    console.log(
      `redis cluster failover figures\n${JSON.stringify({ ...figures, requests: load.records.length, delivered: delivered.length, failedOrUnanswered: refused, ledgerRows: after.ledger.length, billsFinishedAgain: logged('finished again from its final lease'), leasesRecreated: logged('recreated from its renewal'), drained }, null, 2)}`,
    );

    expect(figures.inFlightAtFailover).toBeGreaterThan(0);
    expect(figures.inFlightAtKill).toBeGreaterThan(0);
    expect(delivered.filter((r) => r.paid).length).toBeGreaterThan(0);
    expect(delivered.filter((r) => !r.paid).length).toBeGreaterThan(0);
    expect(findings).toEqual(NOTHING_WRONG);
    expect(drained).toBe(true);
    expect(negative).toBe(0);
  }, 180_000);
});
