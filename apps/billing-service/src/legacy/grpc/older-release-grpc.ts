import { billingV1 } from '@gw/contracts';
import { callStreamHandler, ChainedMethods, eachOnItsOwn, Logger, oneMethodDispatching } from '@gw/service-kit';
import { CurrentBillingHandlers } from '../../grpc/billing-grpc';
import { BillingHandlers } from '../../grpc/served-beside';
import { HoldLedger } from '../domain/hold-ledger';

/** The methods of billing.v1.Billing that only the older release calls (each `deprecated` in billing.proto). */
export type OlderReleaseHandlers = Pick<
  BillingHandlers,
  'authorize' | 'settle' | 'settleMany' | 'releaseHold' | 'renewHolds' | 'recordFree'
>;

/** True only while this release's handlers and these together serve every unary method of billing.v1.Billing. */
type ServesEveryMethod = CurrentBillingHandlers & OlderReleaseHandlers extends BillingHandlers ? true : never;

/** A type error here names a unary method of the contract that neither this file nor billing-grpc.ts serves. */
export const SERVES_EVERY_METHOD: ServesEveryMethod = true;

/**
 * The older release's methods: translation only, the rules are in HoldLedger. Its edges hold
 * at Authorize (unary, or carried on the AuthorizeCalls stream); quota-service settles, records
 * free, releases and renews those requests' holds, never an admitted request's.
 */
export function olderReleaseGrpc(ledger: HoldLedger, logger: Logger): OlderReleaseHandlers {
  const settle = async (req: billingV1.SettleRequest): Promise<billingV1.SettleResponse> => {
    const result = await ledger.settle(req);
    return { chargedMicroLyd: result.chargedMicro, balanceMicroLyd: result.balanceMicro };
  };
  return {
    async authorize(req, { callerGone }) {
      const decision = await ledger.authorize(req, callerGone);
      return { approved: decision.approved, balanceMicroLyd: decision.balanceMicro, requiredMicroLyd: decision.requiredMicro };
    },
    settle,
    async settleMany(req) {
      const outcomes = await eachOnItsOwn(req.requests, settle, logger, 'SettleMany');
      return { outcomes: outcomes.map(({ result, errorCode, errorMessage }) => ({ settled: result, errorCode, errorMessage })) };
    },
    releaseHold: async (req) => ({ released: await ledger.releaseHold(req.requestId) }),
    renewHolds: async (req) => ({ renewed: await ledger.renewHolds(req.requestIds) }),
    recordFree: async (req) => ({ recorded: await ledger.recordFree(req) }),
  };
}

/** The AuthorizeCalls stream: Authorize calls, each served as its unary call would be. */
export const authorizeCallsStream = (methods: ChainedMethods) =>
  callStreamHandler('AuthorizeCalls', methods, oneMethodDispatching('authorize'));
