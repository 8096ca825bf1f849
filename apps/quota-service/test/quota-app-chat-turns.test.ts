import { credentials, status } from '@grpc/grpc-js';
import { quotaV1 } from '@gw/contracts';
import { clientChain, createLogger, rpcClient } from '@gw/service-kit';
import { ChatProductQuota } from '@gw/quota-client';
import { testTlsDir } from '@gw/testing';
import { loadConfig } from '../src/config';
import { startQuotaApp } from '../src/quota-app';
import { admitRequest, awayFromMinuteEnd } from './admission-stack';
import { chatTurnsStack } from './chat-turns-stack';

const silent = createLogger('quota-service-test', 'error', () => undefined);
const DEADLINE_MS = 3000;
const { ADMIT_OUTCOME_FREE: FREE, ADMIT_OUTCOME_NO_PLACE: NO_PLACE, ADMIT_OUTCOME_RATE_LIMITED: RATE_LIMITED } = quotaV1.AdmitOutcome;
const { PAYMENT_FREE } = quotaV1.Payment;
const SETTINGS = { timeoutMs: DEADLINE_MS, chain: clientChain() };

/**
 * The chat product shares the API's count and places (docs/api.md#rate-limits): a chat turn is
 * counted when it takes its place, and a place is given back only by the caller that took it.
 * Real quota-service and billing-service over mutual TLS, the edge and the chat product each with
 * its own certificate.
 */
describe('quota-service over mutual TLS: the chat product counts its turns and frees only its own places', () => {
  const stack = chatTurnsStack();
  let seq = 0;
  const newAccount = (name: string) => `acct_${name}_${process.pid}_${++seq}`;
  const turn = (accountId: string, requestId: string) => stack.chat.acquirePlace({ accountId, requestId, lease: undefined });
  const release = (accountId: string, requestId: string, tokens = 1) =>
    stack.chat.releasePlace({ accountId, requestId, promptTokens: tokens, completionTokens: 0 });

  beforeEach(() => awayFromMinuteEnd(10_000));

  it('refuses the chat product the places of 3 running API requests (PERMISSION_DENIED), and the account runs at most 3', async () => {
    const accountId = newAccount('api');
    // Request ids are unique across accounts, as the edge makes them.
    const apiRequests = [1, 2, 3].map((n) => `${accountId}_api_${n}`);
    for (const requestId of apiRequests)
      expect(await stack.edge.admit(admitRequest(accountId, requestId))).toMatchObject({ outcome: FREE });

    // The attack as found: ReleasePlace on the billing ids of the running API requests.
    for (const requestId of apiRequests)
      await expect(release(accountId, requestId)).rejects.toMatchObject({ code: status.PERMISSION_DENIED });
    // Nor can it take them over by asking for a place under the same id.
    await expect(turn(accountId, apiRequests[0])).rejects.toMatchObject({ code: status.PERMISSION_DENIED });

    // Every place is still the API's: neither a chat turn nor a 4th API request runs.
    expect(await turn(accountId, 'chat_1')).toMatchObject({ granted: false, limit: 3, rateLimited: false });
    expect(await stack.edge.admit(admitRequest(accountId, `${accountId}_api_4`))).toMatchObject({ outcome: NO_PLACE });
    expect(await stack.chat.getUsage({ accountId })).toEqual({ todayTokens: 0, totalTokens: 0 });

    // The edge's own finish still frees an API request's place, and then the chat turn runs.
    const finish = {
      accountId,
      requestId: apiRequests[1],
      model: 'vendor-v4-flash',
      payment: PAYMENT_FREE,
      promptTokens: 10,
      completionTokens: 5,
    };
    expect(await stack.edge.finishRequest({ ...finish, usageEstimated: false, admitted: true })).toMatchObject({ released: true });
    expect(await turn(accountId, 'chat_2')).toMatchObject({ granted: true });
    expect(await stack.edge.admit(admitRequest(accountId, `${accountId}_api_5`))).toMatchObject({ outcome: NO_PLACE });
    expect(await release(accountId, 'chat_2', 7)).toEqual({ released: true });
  });

  it('counts the chat turns AcquirePlace takes without CountRequest: 30 of 40 a minute, the rest rate limited', async () => {
    const accountId = newAccount('turns');
    const answers: quotaV1.AcquirePlaceResponse[] = [];
    for (let n = 1; n <= 40; n++) {
      answers.push(await turn(accountId, `turn_${n}`));
      await release(accountId, `turn_${n}`).catch(() => undefined);
    }
    expect(answers.filter((a) => a.granted)).toHaveLength(30);
    expect(answers[29]).toMatchObject({ granted: true, rateLimited: false, count: { allowed: true, limit: 30, remaining: 0 } });
    expect(answers[30]).toMatchObject({ granted: false, rateLimited: true, count: { allowed: false, limit: 30, remaining: 0 } });
    expect(answers[30].count?.retryAfterSeconds).toBeGreaterThan(0);
    // The count is the API's too.
    expect(await stack.edge.admit(admitRequest(accountId, `${accountId}_api`))).toMatchObject({ outcome: RATE_LIMITED });
  });

  it('counts a turn of an older chat product (CountRequest, then AcquirePlace) once', async () => {
    const accountId = newAccount('older');
    for (let n = 1; n <= 30; n++) {
      expect(await stack.chat.countRequest({ accountId })).toMatchObject({ allowed: true, remaining: 30 - n });
      expect(await turn(accountId, `turn_${n}`)).toMatchObject({ granted: true, count: { allowed: true, remaining: 30 - n } });
      expect(await release(accountId, `turn_${n}`)).toEqual({ released: true });
    }
    expect(await stack.chat.countRequest({ accountId })).toMatchObject({ allowed: false });
    expect(await turn(accountId, 'turn_31')).toMatchObject({ granted: false, rateLimited: true });
  });

  it('gives the chat product its own place back, once, and leaves the edge no count or lease to make of it', async () => {
    const accountId = newAccount('own');
    expect(await turn(accountId, 'chat_1')).toMatchObject({ granted: true, limit: 3, rateLimited: false, count: { remaining: 29 } });
    // Asking again for a place it holds is not a second turn.
    expect(await turn(accountId, 'chat_1')).toMatchObject({ granted: true, count: { remaining: 29 } });
    // The edge's AcquirePlace counts nothing (it counted with Admit or CountRequest).
    const edgePlace = await stack.edge.acquirePlace({ accountId, requestId: `${accountId}_edge`, lease: undefined });
    expect(edgePlace).toEqual({ granted: true, limit: 3 });
    expect(await release(accountId, 'chat_1', 40)).toEqual({ released: true });
    expect(await release(accountId, 'chat_1', 2)).toEqual({ released: false });
    expect(await stack.chat.getUsage({ accountId })).toEqual({ todayTokens: 42, totalTokens: 42 });
  });

  it("keeps the chat product's place when the edge finishes an admitted request of the same id (the finish itself still lands)", async () => {
    const accountId = newAccount('shared');
    const requestId = `${accountId}_turn_1`;
    expect(await turn(accountId, requestId)).toMatchObject({ granted: true });
    const finish = { accountId, requestId, model: 'vendor-v4-flash', payment: PAYMENT_FREE, promptTokens: 1, completionTokens: 1 };
    expect(await stack.edge.finishRequest({ ...finish, usageEstimated: false, admitted: true })).toEqual({
      released: false,
      repeated: false,
    });
    expect(await release(accountId, requestId)).toEqual({ released: true });
  });

  describe('through @chat-gateway/quota-client', () => {
    let client: ChatProductQuota;
    beforeAll(() => {
      client = new ChatProductQuota({
        address: `localhost:${stack.app.port}`,
        tlsDir: testTlsDir('chat-product'),
        deadlineMs: DEADLINE_MS,
      });
    });
    afterAll(() => client?.close());

    it('starts a turn counted and placed in one call: 30 a minute, then rate limited with Retry-After; no place when 3 run', async () => {
      const accountId = newAccount('client');
      const starts = [];
      for (let n = 1; n <= 31; n++) {
        const start = await client.startTurn(accountId, `turn_${n}`);
        starts.push(start);
        if (start.started) expect(await client.givePlaceBack(accountId, `turn_${n}`, { promptTokens: 1, completionTokens: 1 })).toBe(true);
      }
      expect(starts[0]).toMatchObject({ started: true, count: { allowed: true, remaining: 29 } });
      expect(starts.filter((s) => s.started)).toHaveLength(30);
      expect(starts[30]).toMatchObject({ started: false, refused: 'rate-limited', count: { allowed: false, remaining: 0 } });
      expect(starts[30].count.retryAfterSeconds).toBeGreaterThan(0);
      expect(await client.usage(accountId)).toEqual({ todayTokens: 60, totalTokens: 60 });

      const busy = newAccount('client_busy');
      for (const n of [1, 2, 3]) expect(await client.startTurn(busy, `busy_${n}`)).toMatchObject({ started: true });
      expect(await client.startTurn(busy, 'busy_4')).toMatchObject({ started: false, refused: 'no-place', count: { remaining: 26 } });
    });

    it('counts the turn with CountRequest against a quota-service whose AcquirePlace counts nothing, giving the place back when over', async () => {
      // A plain-text quota-service knows no caller, so its AcquirePlace counts nothing and answers
      // no count: as a quota-service older than AcquirePlaceResponse.count does.
      const older = await startQuotaApp(
        loadConfig({
          QUOTA_METRICS_PORT: '0',
          QUOTA_PORT: '0',
          BIND_HOST: '127.0.0.1',
          GRPC_INSECURE: 'true',
          REDIS_URL: stack.redis.url,
          REDIS_KEY_PREFIX: `${stack.redis.keyPrefix}older:`,
          BILLING_ADDR: stack.billingService.address,
          SHUTDOWN_GRACE_MS: '1000',
        }),
        silent,
      );
      const onOlder = new ChatProductQuota(
        { address: `127.0.0.1:${older.port}`, tlsDir: '', deadlineMs: DEADLINE_MS },
        credentials.createInsecure(),
      );
      try {
        const accountId = newAccount('older_service');
        const starts = [];
        for (let n = 1; n <= 31; n++) {
          const start = await onOlder.startTurn(accountId, `turn_${n}`);
          starts.push(start);
          if (start.started) await onOlder.givePlaceBack(accountId, `turn_${n}`, { promptTokens: 0, completionTokens: 0 });
        }
        expect(starts.filter((s) => s.started)).toHaveLength(30);
        expect(starts[29]).toMatchObject({ started: true, count: { allowed: true, remaining: 0 } });
        expect(starts[30]).toMatchObject({ started: false, refused: 'rate-limited', count: { allowed: false } });
        // The 31st turn's place was given back: all 3 are free.
        const plain = rpcClient(quotaV1.QuotaClient, `127.0.0.1:${older.port}`, { kind: 'insecure' }, 'quota-service', SETTINGS);
        const after = await Promise.all([1, 2, 3].map((n) => plain.acquirePlace({ accountId, requestId: `after_${n}`, lease: undefined })));
        plain.close();
        expect(after.map((a) => a.granted)).toEqual([true, true, true]);
      } finally {
        onOlder.close();
        await older.stop();
      }
    });

    it("cannot give back an API request's place (PERMISSION_DENIED), which stays", async () => {
      const accountId = newAccount('client_api');
      const requestId = `${accountId}_api`;
      expect(await stack.edge.admit(admitRequest(accountId, requestId))).toMatchObject({ outcome: FREE });
      await expect(client.givePlaceBack(accountId, requestId, { promptTokens: 0, completionTokens: 0 })).rejects.toMatchObject({
        code: status.PERMISSION_DENIED,
      });
      for (const n of [1, 2]) expect(await client.startTurn(accountId, `turn_${n}`)).toMatchObject({ started: true });
      expect(await client.startTurn(accountId, 'turn_3')).toMatchObject({ started: false, refused: 'no-place' });
    });
  });
});
