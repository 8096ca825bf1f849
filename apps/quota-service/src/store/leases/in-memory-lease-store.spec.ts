import { InMemoryLeaseStore } from './in-memory-lease-store';
import { describeLeaseStoreContract } from '../../../test/store-contracts/lease-store.contract';

describeLeaseStoreContract('in memory', async (now) => new InMemoryLeaseStore(now));
