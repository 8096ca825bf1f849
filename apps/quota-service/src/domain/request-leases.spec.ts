import { status } from '@grpc/grpc-js';
import { createLogger, grpcCodeOf } from '@gw/service-kit';
import { holdOf, SETTINGS } from '../../test/store-contracts/admission-fixtures';
import { AdmissionStore } from '../store/admission/admission-store';
import { TEST_DEFAULTS } from '../../test/store-contracts/free-tier-fixtures';
import { InMemoryLeaseStore } from '../store/leases/in-memory-lease-store';
import { InMemoryBillOutbox } from '../store/outbox/in-memory-bill-outbox';
import { openInMemoryStores } from '../store/in-memory-stores';
import { LeaseRecord } from '../store/leases/lease-store';
import { RequestLeases } from './request-leases';

const quiet = createLogger('quota-service-test', 'error', () => undefined);
const TTL = 30_000;

describe('RequestLeases', () => {
  let nowMs = 1_000_000;
  let store: InMemoryLeaseStore;
  let leases: RequestLeases;
  let admission: AdmissionStore;
  const lease = (requestId: string, overrides: Partial<LeaseRecord> = {}): LeaseRecord => ({
    requestId,
    accountId: 'a',
    model: 'vendor-v4-flash',
    payment: 'paid',
    promptTokens: 100,
    completionTokens: 20,
    usageEstimated: false,
    ...overrides,
  });

  beforeEach(() => {
    const stores = openInMemoryStores(SETTINGS, TEST_DEFAULTS, () => nowMs);
    store = stores.leases;
    admission = stores.admission;
    leases = new RequestLeases(store, admission, TTL, quiet);
  });

  it('keeps the last renewal of each running request, marked estimated', async () => {
    await leases.start(lease('paid-1'));
    await leases.start(lease('free-1', { payment: 'free' }));
    expect(await leases.renew([lease('paid-1', { completionTokens: 60 }), lease('free-1', { payment: 'free' }), lease('gone')])).toEqual([
      'gone',
    ]);
    nowMs += TTL;
    expect(await store.claimLapsed(10, TTL)).toEqual([
      lease('paid-1', { completionTokens: 60, usageEstimated: true }),
      lease('free-1', { payment: 'free', usageEstimated: true }),
    ]);
  });

  it('recreates the lost lease of a paid request admitted by Admit from its renewal, unless it was finished', async () => {
    const admitted = (requestId: string) => lease(requestId, { hold: holdOf(5000), maxTokens: 1000 });
    await admission.finish({
      accountId: 'a',
      requestId: 'finished',
      admitted: true,
      usageEstimated: false,
      lapsed: false,
      payment: 'paid',
      tokens: 0,
      chargeMicro: 0,
      bill: undefined,
    });
    expect(await leases.renew([admitted('lost'), admitted('finished'), lease('older-lost')])).toEqual(['finished', 'older-lost']);
    expect(await leases.renew([admitted('lost')])).toEqual([]);
    nowMs += TTL;
    expect(await store.claimLapsed(10, TTL)).toEqual([{ ...admitted('lost'), usageEstimated: true }]);
  });

  describe('final leases: a bill is never lost with Redis', () => {
    const admitted = (requestId: string, overrides: Partial<LeaseRecord> = {}) =>
      lease(requestId, { hold: holdOf(5000), maxTokens: 1000, ...overrides });
    const final = (requestId: string, overrides: Partial<LeaseRecord> = {}) => admitted(requestId, { ...overrides, final: true });
    const outbox = () => openedOutbox;
    let openedOutbox: InMemoryBillOutbox;
    beforeEach(() => {
      const stores = openInMemoryStores(SETTINGS, TEST_DEFAULTS, () => nowMs);
      store = stores.leases;
      admission = stores.admission;
      openedOutbox = stores.outbox;
      leases = new RequestLeases(store, admission, TTL, quiet);
    });
    const finishOf = (requestId: string, tokens: number, billed: boolean) =>
      admission.finish({
        accountId: 'a',
        requestId,
        admitted: true,
        usageEstimated: false,
        lapsed: false,
        payment: 'paid',
        tokens,
        chargeMicro: 0,
        bill: billed
          ? {
              kind: 'bill',
              requestId,
              accountId: 'a',
              model: 'vendor-v4-flash',
              payment: 'paid',
              promptTokens: tokens,
              completionTokens: 0,
              usageEstimated: false,
              hold: holdOf(5000),
              chargeMicro: 0,
            }
          : undefined,
      });

    it('keeps a final lease while its bill waits, answers it unknown once applied or when there was nothing to bill', async () => {
      await finishOf('waiting', 100, true);
      await finishOf('nothing', 0, false);
      expect(await leases.renew([final('waiting'), final('nothing'), lease('older-final', { final: true })])).toEqual([
        'nothing',
        'older-final',
      ]);
      const claimed = await outbox().claim(10);
      expect(claimed.map((c) => c.record.kind === 'bill' && c.record.requestId)).toEqual(['waiting']);
      expect(await leases.renew([final('waiting')])).toEqual([]);
      await outbox().ack(claimed.map((c) => c.id));
      expect(await leases.renew([final('waiting')])).toEqual(['waiting']);
    });

    it('finishes again a final lease the store has no trace of, from its hold and usage, and keeps it until that bill is applied', async () => {
      expect(
        await leases.renew([
          final('lost', { promptTokens: 1000, completionTokens: 500 }),
          final('lost-free', { payment: 'free', hold: undefined, promptTokens: 10 }),
        ]),
      ).toEqual([]);
      const claimed = await outbox().claim(10);
      expect(claimed.map((c) => c.record)).toEqual([
        {
          kind: 'bill',
          requestId: 'lost',
          accountId: 'a',
          model: 'vendor-v4-flash',
          payment: 'paid',
          promptTokens: 1000,
          completionTokens: 500,
          usageEstimated: false,
          hold: holdOf(5000),
          chargeMicro: 3000,
        },
        {
          kind: 'bill',
          requestId: 'lost-free',
          accountId: 'a',
          model: 'vendor-v4-flash',
          payment: 'free',
          promptTokens: 10,
          completionTokens: 20,
          usageEstimated: false,
          hold: { amountMicro: 0, inputMicroPerMillion: 0, outputMicroPerMillion: 0 },
          chargeMicro: 0,
        },
      ]);
      expect(await admission.credit('a')).toEqual({ granted: 0, charged: 3000, returned: 0, held: 0 });
      expect(await leases.renew([final('lost', { promptTokens: 1000, completionTokens: 500 })])).toEqual([]);
      expect(await outbox().claim(10)).toHaveLength(2);
      await outbox().ack(claimed.map((c) => c.id));
      expect(await leases.renew([final('lost'), final('lost-free', { payment: 'free', hold: undefined })])).toEqual(['lost', 'lost-free']);
      expect(await store.claimLapsed(10, 0)).toEqual([]);
    });

    it('finishes a final lease whose finish the store lost while its admission survived: hold freed, lease ended', async () => {
      await admission.admit({
        accountId: 'a',
        requestId: 'kept',
        mode: 'count',
        payment: 'paid',
        worstMicro: 0,
        lease: admitted('kept'),
        leaseTtlMs: TTL,
      });
      expect(await leases.renew([final('kept')])).toEqual([]);
      nowMs += TTL;
      expect(await store.claimLapsed(10, TTL)).toEqual([]);
      expect((await outbox().claim(10)).map((c) => c.record.kind === 'bill' && c.record.requestId)).toEqual(['kept']);
    });
  });

  it('refuses a hold on a free lease, or one past its bounds', async () => {
    for (const bad of [
      lease('r', { payment: 'free', hold: holdOf(1) }),
      lease('r', { hold: holdOf(-1) }),
      lease('r', { hold: holdOf(1), maxTokens: 0 }),
    ]) {
      expect(grpcCodeOf(await leases.renew([bad]).catch((e: unknown) => e))).toBe(status.INVALID_ARGUMENT);
    }
  });

  it('refuses a lease without ids or model, or with bad token counts, and too many at once', async () => {
    for (const bad of [
      lease(''),
      lease('r', { accountId: '' }),
      lease('r', { model: '' }),
      lease('r', { promptTokens: -1 }),
      lease('r', { completionTokens: 1.5 }),
    ]) {
      const err: unknown = await leases.start(bad).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(grpcCodeOf(err)).toBe(status.INVALID_ARGUMENT);
    }
    const many = Array.from({ length: 257 }, (_, i) => lease(`r${i}`));
    expect(grpcCodeOf(await leases.renew(many).catch((e: unknown) => e))).toBe(status.INVALID_ARGUMENT);
  });
});
