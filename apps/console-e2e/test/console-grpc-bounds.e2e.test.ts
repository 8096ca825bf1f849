import { status } from '@grpc/grpc-js';
import { MAX_ID_LENGTH } from '@gw/bounds';
import { consoleV1 } from '@gw/contracts';
import { clientChain, Database, openDatabase, RpcClient, rpcClient } from '@gw/service-kit';
import { GatewayUnderTest, startGateway } from '@gw/test-stack';

const DEADLINE_MS = 5000;

/**
 * console.v1 CreateInvite, called as the operator over mutual TLS: an account id past 200
 * characters and an email past 254 are refused with INVALID_ARGUMENT, and no invitation is made;
 * at the bounds they are taken (an unknown account at its bound is auth-service's NOT_FOUND).
 */
describe('console.v1.Console over gRPC: bounds of the account id and the email', () => {
  let gw: GatewayUnderTest;
  let pg: Database;
  let consoleClient: RpcClient<consoleV1.ConsoleClient, consoleV1.ConsoleService>;

  beforeAll(async () => {
    gw = await startGateway();
    pg = await openDatabase(gw.stack.env.DATABASE_URL, '');
    const settings = { timeoutMs: DEADLINE_MS, chain: clientChain() };
    consoleClient = rpcClient(consoleV1.ConsoleClient, gw.stack.env.CONSOLE_ADDR, gw.stack.grpcSecurity('ctl'), 'console', settings);
  }, 90_000);

  afterAll(async () => {
    consoleClient?.close();
    await pg?.close();
    await gw?.stop();
  }, 60_000);

  const invite = (accountId: string, email: string) => consoleClient.createInvite({ accountId, email });
  const invites = async () => (await pg.query<{ n: number }>('SELECT count(*)::int AS n FROM console.invites')).rows[0].n;

  it('refuses an account id over 200 characters or an email over 254 with INVALID_ARGUMENT, inviting nobody', async () => {
    const { json } = await gw.stack.ctl('account', 'create', '--name', 'Bounds');
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
