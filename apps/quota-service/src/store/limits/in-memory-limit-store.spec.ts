import { describeFinishRequestContract } from '../../../test/store-contracts/finish-request.contract';
import { InMemoryLimitStore } from './in-memory-limit-store';
import { describeLimitStoreContract } from '../../../test/store-contracts/limit-store.contract';

describeLimitStoreContract('in memory', async (settings, now) => new InMemoryLimitStore(settings, now));
describeFinishRequestContract('in memory', async (settings, now) => new InMemoryLimitStore(settings, now));
