import { InMemorySettleOutbox } from './in-memory-settle-outbox';
import { describeSettleOutboxContract } from '../settle-outbox.contract';

describeSettleOutboxContract('in memory', async () => new InMemorySettleOutbox());
