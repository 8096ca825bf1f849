import { status } from '@grpc/grpc-js';
import { createLogger } from '@gw/service-kit';
import { holdOf, SETTINGS } from '../../../test/store-contracts/admission-fixtures';
import { TEST_DEFAULTS } from '../../../test/store-contracts/free-tier-fixtures';
import { openInMemoryStores } from '../../store/in-memory-stores';
import { InMemoryLeaseStore } from '../../store/leases/in-memory-lease-store';
import { LeaseRecord } from '../../store/leases/lease-store';
import { RequestLeases } from '../request-leases';
import { HoldRenewer, OlderHoldRenewals } from './older-hold-renewals';

const quiet = createLogger('quota-service-test', 'error', () => undefined);
const TTL = 30_000;

describe("RequestLeases renewing the older release's holds at billing-service", () => {
  let nowMs = 1_000_000;
  let store: InMemoryLeaseStore;
  let renewedHolds: string[][];
  let holds: HoldRenewer;
  let leases: RequestLeases;
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
    leases = new RequestLeases(store, stores.admission, TTL, quiet, new OlderHoldRenewals(holds, quiet));
  });

  it('keeps the last renewal of each running request, marked estimated, and renews the holds of the paid ones', async () => {
    await leases.start(lease('paid-1'));
    await leases.start(lease('free-1', { payment: 'free' }));
    expect(await leases.renew([lease('paid-1', { completionTokens: 60 }), lease('free-1', { payment: 'free' }), lease('gone')])).toEqual([
      'gone',
    ]);
    expect(renewedHolds).toEqual([['paid-1']]);
    nowMs += TTL;
    expect(await store.claimLapsed(10, TTL)).toEqual([
      lease('paid-1', { completionTokens: 60, usageEstimated: true }),
      lease('free-1', { payment: 'free', usageEstimated: true }),
    ]);
  });

  it('renews no hold of a request admitted by Admit, nor of a lease the store lacks', async () => {
    await leases.renew([lease('admitted', { hold: holdOf(5000), maxTokens: 1000 }), lease('older-lost')]);
    expect(renewedHolds).toEqual([]);
  });

  it('renews the leases even when billing-service cannot renew the holds now', async () => {
    holds.renewHolds = () => Promise.reject(Object.assign(new Error('down'), { code: status.UNAVAILABLE }));
    await leases.start(lease('paid-2'));
    expect(await leases.renew([lease('paid-2')])).toEqual([]);
  });
});
