import { status } from '@grpc/grpc-js';
import { MAX_ID_LENGTH } from '@gw/bounds';
import { consoleV1 } from '@gw/contracts';
import { clientChain, Database, openDatabase, RpcClient, rpcClient } from '@gw/service-kit';
import { RunningStack, startStack } from '@gw/test-stack';
import { createTestDatabase, createTestRedis, TestDatabase, TestRedis } from '@gw/testing';

const DEADLINE_MS = 5000;

/**
 * console.v1 CreateInvite, called as the operator over mutual TLS: an account id past 200
 * characters and an email past 254 are refused with INVALID_ARGUMENT, and no invitation is made;
 * at the bounds they are taken (an unknown account at its bound is auth-service's NOT_FOUND).
 */
describe('console.v1.Console over gRPC: bounds of the account id and the email', () => {
  let db: TestDatabase;
  let redis: TestRedis;
  let stack: RunningStack;
  let pg: Database;
  let consoleClient: RpcClient<consoleV1.ConsoleClient, consoleV1.ConsoleService>;

  beforeAll(async () => {
    [db, redis] = await Promise.all([createTestDatabase(), createTestRedis()]);
    stack = await startStack({ databaseUrl: db.url, redisUrl: redis.url, redisKeyPrefix: redis.keyPrefix });
    pg = await openDatabase(db.url, '');
    const settings = { timeoutMs: DEADLINE_MS, chain: clientChain() };
    consoleClient = rpcClient(consoleV1.ConsoleClient, stack.env.CONSOLE_ADDR, stack.grpcSecurity('ctl'), 'console', settings);
  }, 90_000);

  afterAll(async () => {
    consoleClient?.close();
    await pg?.close();
    await stack?.stop();
    await Promise.all([db?.drop(), redis?.cleanup()]);
  }, 60_000);

  const invite = (accountId: string, email: string) => consoleClient.createInvite({ accountId, email });
  const invites = async () => (await pg.query<{ n: number }>('SELECT count(*)::int AS n FROM console.invites')).rows[0].n;

  it('refuses an account id over 200 characters or an email over 254 with INVALID_ARGUMENT, inviting nobody', async () => {
    const { json } = await stack.ctl('account', 'create', '--name', 'Bounds');
    const { accountId } = json as { accountId: string };
    const email = (length: number) => `${'h'.repeat(length - '@example.com'.length)}@example.com`;
    const before = await invites();
    await expect(invite('a'.repeat(MAX_ID_LENGTH + 1), 'holder@example.com')).rejects.toMatchObject({ code: status.INVALID_ARGUMENT });
    await expect(invite(accountId, email(255))).rejects.toMatchObject({ code: status.INVALID_ARGUMENT });
    expect(await invites()).toBe(before);

    await expect(invite('a'.repeat(MAX_ID_LENGTH), 'holder@example.com')).rejects.toMatchObject({ code: status.NOT_FOUND });
    expect(await invite(accountId, email(254))).toMatchObject({ link: expect.stringContaining('/invite/') });
    expect(await invites()).toBe(before + 1);
  });
});
