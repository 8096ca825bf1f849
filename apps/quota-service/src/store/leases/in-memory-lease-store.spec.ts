import { InMemoryLeaseStore } from './in-memory-lease-store';
import { describeLeaseStoreContract } from '../lease-store.contract';

describeLeaseStoreContract('in memory', async (now) => new InMemoryLeaseStore(now));
