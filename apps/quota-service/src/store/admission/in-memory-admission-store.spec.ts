import { AdmissionStoresFactory } from '../admission-fixtures';
import { describeAdmissionContract } from '../admission-store.contract';
import { describeAdmittedFinishContract } from '../admitted-finish.contract';
import { TEST_DEFAULTS } from '../free-tier-fixtures';
import { openInMemoryStores } from '../in-memory-stores';

const open: AdmissionStoresFactory = async (settings, now) => openInMemoryStores(settings, TEST_DEFAULTS, now);

describeAdmissionContract('in memory', open);
describeAdmittedFinishContract('in memory', open);
