import { billingV1 } from '@gw/contracts';
import { createLogger } from '@gw/service-kit';
import { BillingParts, billingGrpc } from '../../src/grpc/billing-grpc';
import { HoldLedger } from '../../src/legacy/domain/hold-ledger';
import { authorizeCallsStream, olderReleaseGrpc } from '../../src/legacy/grpc/older-release-grpc';

const quiet = createLogger('billing-service', 'error', () => undefined);

describe('billing.v1.Billing with the older release beside the current methods', () => {
  it('serves every method of the contract, the deprecated ones from legacy/', () => {
    const served = billingGrpc({} as BillingParts, quiet, [
      {
        handlers: olderReleaseGrpc({} as HoldLedger, quiet),
        streams: (methods) => ({ authorizeCalls: authorizeCallsStream(methods) }),
        start: () => undefined,
        stop: async () => undefined,
      },
    ]);
    expect(Object.keys(served.implementation).sort()).toEqual(Object.keys(billingV1.BillingService).sort());
  });

  it('serves only the current methods without it', () => {
    const served = billingGrpc({} as BillingParts, quiet);
    const older = ['authorize', 'authorizeCalls', 'settle', 'settleMany', 'releaseHold', 'renewHolds', 'recordFree'];
    expect(Object.keys(served.implementation).sort()).toEqual(
      Object.keys(billingV1.BillingService)
        .filter((key) => !older.includes(key))
        .sort(),
    );
  });
});
