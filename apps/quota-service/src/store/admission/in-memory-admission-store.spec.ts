import { AdmissionStoresFactory } from '../../../test/store-contracts/admission-fixtures';
import { describeAdmissionContract } from '../../../test/store-contracts/admission-store.contract';
import { describeAdmittedFinishContract } from '../../../test/store-contracts/admitted-finish.contract';
import { describeLapseGraceContract } from '../../../test/store-contracts/lapse-grace.contract';
import { TEST_DEFAULTS } from '../../../test/store-contracts/free-tier-fixtures';
import { openInMemoryStores } from '../in-memory-stores';

const open: AdmissionStoresFactory = async (settings, now) => openInMemoryStores(settings, TEST_DEFAULTS, now);

describeAdmissionContract('in memory', open);
describeAdmittedFinishContract('in memory', open);
describeLapseGraceContract('in memory', open);
