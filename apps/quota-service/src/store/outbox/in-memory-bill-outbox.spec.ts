import { InMemoryBillOutbox } from './in-memory-bill-outbox';
import { describeBillOutboxContract } from '../../../test/store-contracts/bill-outbox.contract';

describeBillOutboxContract('in memory', async () => new InMemoryBillOutbox());
