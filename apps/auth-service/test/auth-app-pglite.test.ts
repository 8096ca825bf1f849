import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { authV1, eventsV1 } from '@gw/contracts';
import { clientChain, rpcClient } from '@gw/service-kit';
import { BuiltApp, eventually, startBuiltApp, stopBuiltApp } from '@gw/testing';

const DEADLINE_MS = 10_000;
const { HolderEventKind } = eventsV1;

/**
 * auth-service on the embedded PGlite, as its built bundle runs (startBuiltApp): its migrations
 * apply there, and a suspension whose end passed is ended and told as on Postgres.
 */
describe('auth-service on the embedded PGlite', () => {
  let workDir: string;
  let running: BuiltApp | undefined;

  beforeAll(async () => {
    workDir = await mkdtemp(path.join(tmpdir(), 'auth-pglite-'));
  });

  afterAll(async () => {
    if (running && running.child.exitCode === null) await stopBuiltApp(running);
    await rm(workDir, { recursive: true, force: true });
  });

  it('ends a suspension whose end passed: the holders told once, the end in the audit trail by auth-service', async () => {
    // DATABASE_URL is left out on purpose: unset selects PGlite under DATA_DIR.
    const env = { DATA_DIR: path.join(workDir, 'data'), AUTH_PORT: '0', AUTH_METRICS_PORT: '0', BIND_HOST: '127.0.0.1' };
    running = await startBuiltApp('auth-service', { ...env, GRPC_INSECURE: 'true', SUSPENSION_END_CHECK_MS: '100' }, workDir);
    expect(running.store).toBe('pglite');
    const client = rpcClient(authV1.AuthClient, `127.0.0.1:${running.port}`, { kind: 'insecure' }, 'auth-service', {
      timeoutMs: DEADLINE_MS,
      chain: clientChain(),
    });
    try {
      const newAccount = async () => (await client.createAccount({ name: 'Embedded' })).account?.accountId ?? '';
      const [due, ahead] = [await newAccount(), await newAccount()];
      const past = new Date(Date.now() - 60_000).toISOString();
      await client.suspendAccount({ accountId: due, until: past, reason: 'unpaid invoice' });
      await client.suspendAccount({ accountId: ahead, until: '2031-01-02T03:04:05.000Z', reason: 'unpaid invoice' });
      const trailOf = async (accountId: string) =>
        (await client.listAuditEntries({ accountId, limit: 10 })).entries.map((e) => ({
          action: e.action,
          details: JSON.parse(e.detailsJson) as unknown,
          actor: e.actor,
        }));
      const trail = await eventually(
        () => trailOf(due),
        (entries) => entries.length === 2,
        { what: 'the suspension ended in the audit trail' },
      );
      expect(trail[0]).toEqual({ action: 'account-unsuspended', details: { endedAt: past, by: 'expiry' }, actor: 'auth-service' });
      expect((await trailOf(ahead)).map((e) => e.action)).toEqual(['account-suspended']);

      const received: eventsV1.HolderEvent[] = [];
      const stream = client.streams.watchHolderEvents({ after: '' });
      stream.on('data', (m: authV1.WatchHolderEventsResponse) => received.push(...m.events));
      stream.on('error', () => undefined);
      // The three events there are: two suspensions, one end.
      await eventually(
        () => received.length,
        (n) => n === 3,
        { what: 'the holder events, streamed' },
      );
      stream.cancel();
      const ends = received.filter((e) => e.kind === HolderEventKind.HOLDER_EVENT_KIND_ACCOUNT_UNSUSPENDED);
      expect(ends.map((e) => ({ accountId: e.accountId, details: JSON.parse(e.detailsJson) as unknown }))).toEqual([
        { accountId: due, details: { endedAt: past, by: 'expiry' } },
      ]);
      expect((await client.verifyAuditTrail({})).check).toMatchObject({ ok: true, entries: 3 });
    } finally {
      client.close();
    }
    expect(await stopBuiltApp(running)).toBe(0);
  }, 60_000);
});
