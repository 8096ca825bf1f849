import { createHash } from 'node:crypto';
import type { Counter } from 'prom-client';
import { createLogger } from '@gw/service-kit';
import { eventually } from '@gw/testing';
import { AuthClient } from '../src/clients/auth-client';
import { IdentityWatch } from '../src/clients/identity-watch';
import { KeyUseReporter } from '../src/clients/key-use-reporter';
import { CachedKeyLookup } from '../src/domain/cached-key-lookup';
import { KeyCache } from '../src/domain/key-cache';
import { keyCacheFlushes, keyCacheHandovers, keyCacheTrusted } from '../src/edge-metrics';
import { FakeAuthOptions, FakeAuthServer } from './fake-auth-server';

const KEYS = 20;
const RUN_MS = 6000;
/** Connections live 0.3 s, then 1.5 s of grace: a stream is cut about every 1.8 s. */
const AGES = { maxConnectionAgeMs: 300, maxConnectionAgeGraceMs: 1500, beatMs: 200 };
const sha = (key: string) => createHash('sha256').update(key).digest('hex');
/** The sum of a counter's values whose labels include `labels`. */
const counted = async (metric: Counter<string>, labels: Record<string, string> = {}) =>
  (await metric.get()).values
    .filter((v) => Object.entries(labels).every(([k, x]) => v.labels[k] === x))
    .reduce((sum, v) => sum + v.value, 0);

/**
 * The edge's IdentityWatch against an auth-service double over real gRPC whose connections are cut
 * by their maximum age every 1.8 s: with syncs answered it hands over to a new stream before each
 * cut and keeps its key cache; with an auth-service of the version before syncs it empties the
 * cache at each cut, as edges did before. Either way a revoked key is refused as soon as the
 * revocation returns.
 */
describe('IdentityWatch across connection-age cuts (auth-service double over gRPC)', () => {
  let fake: FakeAuthServer;
  let client: AuthClient;
  let watch: IdentityWatch;
  let reporter: KeyUseReporter;

  const start = async (options: Pick<FakeAuthOptions, 'answersSyncs'>) => {
    fake = await FakeAuthServer.start({ ...AGES, ...options });
    client = new AuthClient(`127.0.0.1:${fake.port}`, { kind: 'insecure' }, 1000);
    const cache = new KeyCache(1000);
    watch = new IdentityWatch(
      client,
      cache,
      createLogger('edge', 'error', () => undefined),
      { everyMs: 500, syncTimeoutMs: 1000 },
    );
    reporter = new KeyUseReporter(
      client,
      createLogger('edge', 'error', () => undefined),
    );
    const lookup = new CachedKeyLookup(client, cache, reporter);
    const keys = Array.from({ length: KEYS }, (_, i) => ({ key: `sk-watch-${i}`, keyId: `key_${i}` }));
    for (const k of keys) fake.addKey(sha(k.key), k.keyId, `acct_${k.keyId}`);
    await eventually(async () => (await keyCacheTrusted.get()).values[0]?.value === 1, {
      timeoutMs: 5000,
      intervalMs: 20,
      what: 'key cache trusted',
    });
    for (const k of keys) expect((await lookup.authenticate(sha(k.key))).found).toBe(true);
    fake.authenticated.clear();
    return { keys, lookup };
  };

  /** Revokes a key every 100 ms or so for RUN_MS, checking it is refused at once; between, the live keys are all found. */
  const run = async (keys: { key: string; keyId: string }[], lookup: CachedKeyLookup) => {
    const served: string[] = [];
    const live = [...keys];
    for (const end = Date.now() + RUN_MS; Date.now() < end && live.length > 2;) {
      const revoked = live.shift() as { key: string; keyId: string };
      await fake.revoke(revoked.keyId);
      if ((await lookup.authenticate(sha(revoked.key))).found) served.push(revoked.keyId);
      for (const k of live) expect((await lookup.authenticate(sha(k.key))).found).toBe(true);
      // Pacing the revocations over RUN_MS is the scenario.
      await new Promise((r) => setTimeout(r, (RUN_MS / KEYS) * 0.8));
    }
    return { served, live };
  };

  afterEach(async () => {
    watch?.stop();
    await reporter?.stop();
    client?.close();
    await fake?.stop();
  });

  it('hands over before each cut and keeps its cache: no cached key asked about again, every revoked key refused at once', async () => {
    const { keys, lookup } = await start({ answersSyncs: true });
    const [flushes, handovers] = [await counted(keyCacheFlushes), await counted(keyCacheHandovers, { outcome: 'done' })];
    const { served, live } = await run(keys, lookup);
    expect(served).toEqual([]);
    expect(live.map((k) => fake.authenticated.get(k.keyId) ?? 0)).toEqual(live.map(() => 0));
    expect(await counted(keyCacheFlushes)).toBe(flushes);
    expect((await counted(keyCacheHandovers, { outcome: 'done' })) - handovers).toBeGreaterThanOrEqual(5);
  }, 20_000);

  it('with an auth-service that never answers a sync, gives each handover up and empties the cache at each cut, as before, never serving a revoked key', async () => {
    const { keys, lookup } = await start({ answersSyncs: false });
    const [flushes, unanswered] = [await counted(keyCacheFlushes), await counted(keyCacheHandovers, { outcome: 'unanswered' })];
    const { served, live } = await run(keys, lookup);
    expect(served).toEqual([]);
    expect((await counted(keyCacheHandovers, { outcome: 'unanswered' })) - unanswered).toBeGreaterThanOrEqual(1);
    expect((await counted(keyCacheFlushes)) - flushes).toBeGreaterThanOrEqual(2);
    // Emptied, the cache asked again about the keys it held.
    expect(live.every((k) => (fake.authenticated.get(k.keyId) ?? 0) >= 1)).toBe(true);
  }, 20_000);
});
