import { describeFreeTierBudget } from '../../../test/store-contracts/free-tier-budget.contract';
import { describeFreeTierDecisions } from '../../../test/store-contracts/free-tier-decisions.contract';
import { FreeTierStoreFactory } from '../../../test/store-contracts/free-tier-fixtures';
import { InMemoryFreeTierStore } from './in-memory-free-tier-store';

const open: FreeTierStoreFactory = async (defaults, now) => new InMemoryFreeTierStore(defaults, now);

describeFreeTierDecisions('in memory', open);
describeFreeTierBudget('in memory', open);
