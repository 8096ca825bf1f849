import { ClientDuplexStream, credentials } from '@grpc/grpc-js';
import { Client as PgClient } from 'pg';
import { authV1 } from '@gw/contracts';
import { createLogger } from '@gw/service-kit';
import { createTestDatabase, TestDatabase } from '@gw/testing';
import { AuthApp, startAuthApp } from '../src/auth-app';
import { loadConfig } from '../src/config';

type WatchStream = ClientDuplexStream<authV1.WatchIdentityChangesRequest, authV1.WatchIdentityChangesResponse>;

/** A change stream as an edge holds it: every change acknowledged, every message kept in order. */
function watch(auth: authV1.AuthClient): {
  stream: WatchStream;
  heard: authV1.WatchIdentityChangesResponse[];
  next(test: (m: authV1.WatchIdentityChangesResponse) => boolean): Promise<void>;
} {
  const stream = auth.watchIdentityChanges();
  const heard: authV1.WatchIdentityChangesResponse[] = [];
  const waiters: { test(m: authV1.WatchIdentityChangesResponse): boolean; done(): void }[] = [];
  stream.on('data', (message: authV1.WatchIdentityChangesResponse) => {
    heard.push(message);
    if (!message.heartbeat) stream.write({ appliedSequence: message.sequence, sync: 0 });
    for (const w of waiters.filter((each) => each.test(message))) {
      waiters.splice(waiters.indexOf(w), 1);
      w.done();
    }
  });
  stream.on('error', () => undefined);
  return { stream, heard, next: (test) => new Promise<void>((done) => waiters.push({ test, done })) };
}

/**
 * Syncs on the change stream (auth.v1 WatchIdentityChanges, `sync` / `synced`), with two replicas
 * on one Postgres: a sync is answered on its own stream only, and only after every change
 * committed before it reached the replica has been sent on that stream, whichever replica
 * notified it.
 */
describe('auth.v1 WatchIdentityChanges syncs, two replicas on Postgres', () => {
  let db: TestDatabase;
  let replicas: AuthApp[] = [];
  let clients: authV1.AuthClient[] = [];
  let notifier: PgClient;

  beforeAll(async () => {
    db = await createTestDatabase();
    const config = loadConfig({
      AUTH_METRICS_PORT: '0',
      AUTH_PORT: '0',
      BIND_HOST: '127.0.0.1',
      GRPC_INSECURE: 'true',
      DATABASE_URL: db.url,
      SHUTDOWN_GRACE_MS: '500',
    });
    const logger = createLogger('auth-service', 'error', () => undefined);
    replicas = [await startAuthApp(config, logger), await startAuthApp(config, logger)];
    clients = replicas.map((r) => new authV1.AuthClient(`127.0.0.1:${r.port}`, credentials.createInsecure()));
    notifier = new PgClient({ connectionString: db.url });
    await notifier.connect();
  });

  afterAll(async () => {
    await notifier?.end();
    for (const c of clients) c.close();
    await Promise.all(replicas.map((r) => r.stop()));
    await db?.drop();
  });

  it('answers a sync with a heartbeat carrying it, on the stream that asked only', async () => {
    const [asking, other] = [watch(clients[0]), watch(clients[0])];
    await Promise.all([asking.next((m) => m.heartbeat), other.next((m) => m.heartbeat)]);
    asking.stream.write({ appliedSequence: 0, sync: 41 });
    await asking.next((m) => m.synced === 41);
    expect(asking.heard.filter((m) => m.synced !== 0).map((m) => [m.heartbeat, m.synced])).toEqual([[true, 41]]);
    await other.next((m) => m.heartbeat);
    expect(other.heard.filter((m) => m.synced !== 0)).toEqual([]);
    asking.stream.cancel();
    other.stream.cancel();
  });

  it('sends every change committed before a sync arrived ahead of its answer, from either replica', async () => {
    const streams = [watch(clients[0]), watch(clients[1])];
    await Promise.all(streams.map((s) => s.next((m) => m.heartbeat)));
    for (let round = 1; round <= 10; round++) {
      const keyId = `key_fence_${round}`;
      // Committed when the query returns, as a RevokeKey on some replica would notify it.
      await notifier.query('SELECT pg_notify($1, $2)', ['auth_identity_changes', JSON.stringify({ id: `fence-test-${round}`, keyId })]);
      for (const s of streams) s.stream.write({ appliedSequence: 0, sync: round });
      await Promise.all(
        streams.map(async (s) => {
          await s.next((m) => m.synced === round);
          const answer = s.heard.findIndex((m) => m.synced === round);
          expect(s.heard.findIndex((m) => m.keyId === keyId)).toBeGreaterThanOrEqual(0);
          expect(s.heard.findIndex((m) => m.keyId === keyId)).toBeLessThan(answer);
        }),
      );
    }
    for (const s of streams) s.stream.cancel();
  }, 30_000);
});
