import { InMemorySettleOutbox } from './in-memory-settle-outbox';
import { describeSettleOutboxContract } from '../../../test/store-contracts/settle-outbox.contract';

describeSettleOutboxContract('in memory', async () => new InMemorySettleOutbox());
