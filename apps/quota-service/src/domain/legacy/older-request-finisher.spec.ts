import { status } from '@grpc/grpc-js';
import { EVENING, freeRequest, RESERVED, TEST_DEFAULTS, TEST_LIMITS } from '../../../test/store-contracts/free-tier-fixtures';
import { grantLine, paidBill, paidStep, SETTINGS } from '../../../test/store-contracts/admission-fixtures';
import { InMemoryAdmissionStore } from '../../store/admission/in-memory-admission-store';
import { InMemoryFreeTierStore } from '../../store/free-tier/in-memory-free-tier-store';
import { InMemoryLeaseStore } from '../../store/leases/in-memory-lease-store';
import { InMemoryLimitStore } from '../../store/limits/in-memory-limit-store';
import { InMemoryBillOutbox } from '../../store/outbox/in-memory-bill-outbox';
import { InMemoryStoreSet, openInMemoryStores } from '../../store/in-memory-stores';
import { OlderOutboxBill } from '../../store/outbox/bill-outbox';
import { FreeTierGate } from '../free-tier-gate';
import { RequestFinisher } from '../request-finisher';
import { OlderRequestFinisher } from './older-request-finisher';
import { DomainError } from '@gw/errors';
import { grpcCodeOf } from '@gw/service-kit';

const bill = (overrides: Partial<OlderOutboxBill> = {}): OlderOutboxBill => ({
  requestId: 'r1',
  accountId: 'a',
  model: 'vendor-v4-flash',
  payment: 'paid',
  promptTokens: 1000,
  completionTokens: 200,
  usageEstimated: false,
  ...overrides,
});

describe('OlderRequestFinisher', () => {
  let limits: InMemoryLimitStore;
  let freeTier: InMemoryFreeTierStore;
  let outbox: InMemoryBillOutbox;
  let leases: InMemoryLeaseStore;
  let finisher: OlderRequestFinisher;
  let gate: FreeTierGate;
  const now = () => EVENING;
  const queued = async () => (await outbox.claim(100)).map((c) => c.record);

  beforeEach(async () => {
    limits = new InMemoryLimitStore(SETTINGS, now);
    freeTier = new InMemoryFreeTierStore({ ...TEST_DEFAULTS, dailyTokens: RESERVED }, now);
    outbox = new InMemoryBillOutbox();
    leases = new InMemoryLeaseStore(now);
    finisher = new OlderRequestFinisher({
      limits,
      freeTier,
      outbox,
      leases,
      admission: new InMemoryAdmissionStore({ limits, freeTier, outbox, leases }, SETTINGS, now),
    });
    gate = new FreeTierGate(freeTier, TEST_LIMITS);
  });

  it('queues the bill of a paid request, frees its place and counts its tokens', async () => {
    await limits.acquirePlace('a', 'r1');
    expect(await finisher.finish(bill())).toEqual({ released: true, repeated: false });
    expect(await queued()).toEqual([bill()]);
    expect(await limits.getUsage('a')).toEqual({ todayTokens: 1200, totalTokens: 1200 });
  });

  it('ends the lease of the request, so that it never lapses', async () => {
    await leases.start(bill({ promptTokens: 10, completionTokens: 0, usageEstimated: true }), 0);
    await finisher.finish(bill());
    expect(await leases.claimLapsed(10, 1000)).toEqual([]);
  });

  it('on a repeat, queues the same bill again (billing applies it once) and counts nothing twice', async () => {
    await finisher.finish(bill());
    expect(await finisher.finish(bill())).toEqual({ released: false, repeated: true });
    expect(await queued()).toEqual([bill(), bill()]);
    expect(await limits.getUsage('a')).toEqual({ todayTokens: 1200, totalTokens: 1200 });
  });

  it('settles a free request with its real tokens, once', async () => {
    const request = freeRequest('a');
    expect(await gate.reserve(request)).toMatchObject({ granted: true });
    const free = bill({ requestId: request.requestId, payment: 'free', promptTokens: 1000, completionTokens: 48 });
    await finisher.finish(free);
    await finisher.finish(free);
    expect(await queued()).toEqual([free, free]);
    // 3,148 - 1,048 = 2,100 left: exactly a request of 1,100 + 1,000.
    expect(await gate.reserve(freeRequest('a', { maxTokens: 1001 }))).toMatchObject({ granted: false, refusal: 'allowance-too-small' });
    expect(await gate.reserve(freeRequest('a', { maxTokens: 1000 }))).toMatchObject({ granted: true });
  });

  it('does not bill a request without tokens: a free one queues nothing and gets its reservation back', async () => {
    const request = freeRequest('a');
    await gate.reserve(request);
    await finisher.finish(bill({ requestId: request.requestId, payment: 'free', promptTokens: 0, completionTokens: 0 }));
    expect(await queued()).toEqual([]);
    expect(await gate.reserve(freeRequest('a'))).toMatchObject({ granted: true });
    expect(await limits.getUsage('a')).toEqual({ todayTokens: 0, totalTokens: 0 });
  });

  it('queues a paid request without tokens, so that its hold is released', async () => {
    const unbilled = bill({ promptTokens: 0, completionTokens: 0 });
    await finisher.finish(unbilled);
    expect(await queued()).toEqual([unbilled]);
  });

  it('refuses missing ids or model and bad token counts with INVALID_ARGUMENT, changing nothing', async () => {
    for (const bad of [
      bill({ accountId: '' }),
      bill({ requestId: '' }),
      bill({ model: '' }),
      bill({ promptTokens: -1 }),
      bill({ completionTokens: 0.5 }),
    ]) {
      const err: unknown = await finisher.finish(bad).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(DomainError);
      expect(grpcCodeOf(err)).toBe(status.INVALID_ARGUMENT);
    }
    expect(await queued()).toEqual([]);
  });
});

describe('RequestFinisher beside the older release', () => {
  let stores: InMemoryStoreSet;

  beforeEach(async () => {
    stores = openInMemoryStores(SETTINGS, TEST_DEFAULTS, () => EVENING);
    await grantLine(stores.admission, 'a', 100_000);
    await stores.admission.admit(paidStep('a', 6000, { requestId: 'r1' }));
  });

  it('finishes a lapsed lease: an admitted paid one at its hold, estimated; an older one as before', async () => {
    const lapsed = { ...paidStep('a', 6000, { requestId: 'r1' }).lease, promptTokens: 1000, completionTokens: 500 };
    const finisher = new RequestFinisher(stores, undefined, new OlderRequestFinisher(stores));
    await finisher.finishLapsed(lapsed);
    await finisher.finishLapsed(bill({ requestId: 'older', usageEstimated: true }));
    expect((await stores.outbox.claim(10)).map((c) => c.record)).toEqual([
      { ...paidBill('a', 'r1', 6000, 1000, 500, 3000), usageEstimated: true, endReason: 'recovered', admittedAtMs: EVENING },
      bill({ requestId: 'older', usageEstimated: true }),
    ]);
  });
});
