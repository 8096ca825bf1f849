import { status } from '@grpc/grpc-js';
import { createLogger, RpcError } from '@gw/service-kit';
import { holdOf, SETTINGS } from '../store/admission-fixtures';
import { AdmissionStore } from '../store/admission-store';
import { TEST_DEFAULTS } from '../store/free-tier-fixtures';
import { InMemoryLeaseStore } from '../store/in-memory-lease-store';
import { openInMemoryStores } from '../store/in-memory-stores';
import { LeaseRecord } from '../store/lease-store';
import { HoldRenewer, RequestLeases } from './request-leases';

const quiet = createLogger('quota-service-test', 'error', () => undefined);
const TTL = 30_000;

describe('RequestLeases', () => {
  let nowMs = 1_000_000;
  let store: InMemoryLeaseStore;
  let renewedHolds: string[][];
  let holds: HoldRenewer;
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
    renewedHolds = [];
    holds = { renewHolds: async (ids) => void renewedHolds.push(ids) };
    admission = stores.admission;
    leases = new RequestLeases(store, admission, TTL, holds, quiet);
  });

  it('keeps the last renewal of each running request, marked estimated, and renews the holds of the paid ones', async () => {
    await leases.start(lease('paid-1'));
    await leases.start(lease('free-1', { payment: 'free' }));
    expect(await leases.renew([lease('paid-1', { completionTokens: 60 }), lease('free-1', { payment: 'free' }), lease('gone')])).toEqual(['gone']);
    expect(renewedHolds).toEqual([['paid-1']]);
    nowMs += TTL;
    expect(await store.claimLapsed(10, TTL)).toEqual([
      lease('paid-1', { completionTokens: 60, usageEstimated: true }),
      lease('free-1', { payment: 'free', usageEstimated: true }),
    ]);
  });

  it('recreates the lost lease of a paid request admitted by Admit from its renewal, unless it was finished, and renews no hold of it', async () => {
    const admitted = (requestId: string) => lease(requestId, { hold: holdOf(5000), maxTokens: 1000 });
    await admission.finish({ accountId: 'a', requestId: 'finished', admitted: true, usageEstimated: false, lapsed: false, payment: 'paid', tokens: 0, chargeMicro: 0, bill: undefined });
    expect(await leases.renew([admitted('lost'), admitted('finished'), lease('older-lost')])).toEqual(['finished', 'older-lost']);
    expect(await leases.renew([admitted('lost')])).toEqual([]);
    expect(renewedHolds).toEqual([]);
    nowMs += TTL;
    expect(await store.claimLapsed(10, TTL)).toEqual([{ ...admitted('lost'), usageEstimated: true }]);
  });

  it('refuses a hold on a free lease, or one past its bounds', async () => {
    for (const bad of [lease('r', { payment: 'free', hold: holdOf(1) }), lease('r', { hold: holdOf(-1) }), lease('r', { hold: holdOf(1), maxTokens: 0 })]) {
      expect(((await leases.renew([bad]).catch((e: unknown) => e)) as RpcError).code).toBe(status.INVALID_ARGUMENT);
    }
  });

  it('renews the leases even when billing-service cannot renew the holds now', async () => {
    holds.renewHolds = () => Promise.reject(Object.assign(new Error('down'), { code: status.UNAVAILABLE }));
    await leases.start(lease('paid-2'));
    expect(await leases.renew([lease('paid-2')])).toEqual([]);
  });

  it('refuses a lease without ids or model, or with bad token counts, and too many at once', async () => {
    for (const bad of [lease(''), lease('r', { accountId: '' }), lease('r', { model: '' }), lease('r', { promptTokens: -1 }), lease('r', { completionTokens: 1.5 })]) {
      const err: unknown = await leases.start(bad).then(() => undefined, (e: unknown) => e);
      expect((err as RpcError).code).toBe(status.INVALID_ARGUMENT);
    }
    const many = Array.from({ length: 257 }, (_, i) => lease(`r${i}`));
    expect(((await leases.renew(many).catch((e: unknown) => e)) as RpcError).code).toBe(status.INVALID_ARGUMENT);
  });
});
