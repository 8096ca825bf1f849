import { describeFinishRequestContract } from '../finish-request.contract';
import { InMemoryLimitStore } from './in-memory-limit-store';
import { describeLimitStoreContract } from '../limit-store.contract';

describeLimitStoreContract('in memory', async (settings, now) => new InMemoryLimitStore(settings, now));
describeFinishRequestContract('in memory', async (settings, now) => new InMemoryLimitStore(settings, now));
