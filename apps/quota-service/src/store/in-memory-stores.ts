import { FreeTierSettings } from './free-tier/free-tier-store';
import { InMemoryAdmissionStore } from './admission/in-memory-admission-store';
import { InMemoryFreeTierStore } from './free-tier/in-memory-free-tier-store';
import { InMemoryLeaseStore } from './leases/in-memory-lease-store';
import { InMemoryLimitStore } from './limits/in-memory-limit-store';
import { InMemoryBillOutbox } from './outbox/in-memory-bill-outbox';
import { LimitSettings } from './limits/limit-store';

/** Every store of quota-service in this process's memory, sharing their state as the Redis ones share keys. */
export interface InMemoryStoreSet {
  limits: InMemoryLimitStore;
  freeTier: InMemoryFreeTierStore;
  outbox: InMemoryBillOutbox;
  leases: InMemoryLeaseStore;
  admission: InMemoryAdmissionStore;
}

/** Opens the in-memory stores (no REDIS_URL, and tests) on one clock (ms). */
export function openInMemoryStores(
  settings: Readonly<LimitSettings>,
  freeTierDefaults: Readonly<FreeTierSettings>,
  now: () => number = Date.now,
): InMemoryStoreSet {
  const stores = {
    limits: new InMemoryLimitStore(settings, now),
    freeTier: new InMemoryFreeTierStore(freeTierDefaults, now),
    outbox: new InMemoryBillOutbox(),
    leases: new InMemoryLeaseStore(now),
  };
  return { ...stores, admission: new InMemoryAdmissionStore(stores, settings, now) };
}
