import { describeFreeTierBudget } from '../free-tier-budget.contract';
import { describeFreeTierDecisions } from '../free-tier-decisions.contract';
import { FreeTierStoreFactory } from '../free-tier-fixtures';
import { InMemoryFreeTierStore } from './in-memory-free-tier-store';

const open: FreeTierStoreFactory = async (defaults, now) => new InMemoryFreeTierStore(defaults, now);

describeFreeTierDecisions('in memory', open);
describeFreeTierBudget('in memory', open);
