import { Metadata, status } from '@grpc/grpc-js';
import { quotaV1 } from '@gw/contracts';
import { DomainError } from '@gw/errors';
import { auditActor, callStreamHandler, eachOnItsOwn, isCaller, Logger, MoneyAudit, RpcError, unaryHandler } from '@gw/service-kit';
import { Admission, AdmitDecision } from '../domain/admission';
import { FreeTierGate, FreeTierTrail } from '../domain/free-tier-gate';
import { StoreViolation } from '../domain/store-audit';
import { LineReturner } from '../domain/line-returner';
import { QuotaLedger } from '../domain/quota-ledger';
import { RequestFinisher } from '../domain/request-finisher';
import { RequestLeases } from '../domain/request-leases';
import { admits, freeRefusalKind, refusals, storeUnavailable } from '../quota-metrics';
import { StoreUnavailableError } from '../store/store-unavailable-error';
import { toAdmitRequest, toAdmitResponse, toAdmittedEnd } from './admit-messages';
import { toLeaseRecord, toReserveFreeResponse, toSettingsChange, toSettleRecord } from './free-tier-messages';
import { placeLease } from './place-lease';

type EdgeRequest = quotaV1.EdgeCall['request'];
type EdgeResponse = quotaV1.EdgeAnswer['response'];

/** The unary method each EdgeCalls call stands for: its metrics and logs carry that name. */
const EDGE_METHODS: Record<NonNullable<EdgeRequest>['$case'] | 'none', string> = {
  countRequest: 'CountRequest',
  acquirePlace: 'AcquirePlace',
  reserveFree: 'ReserveFree',
  finishRequest: 'FinishRequest',
  admit: 'Admit',
  none: 'EdgeCalls',
};

/** The rules quota.v1.Quota serves. */
export interface QuotaDomain {
  ledger: QuotaLedger;
  freeTier: FreeTierGate;
  finisher: RequestFinisher;
  leases: RequestLeases;
  admission: Admission;
  lines: LineReturner;
  /** The audit of the store; none when it is in memory. */
  storeAudit?: MoneyAudit<StoreViolation>;
  freeTierTrail: FreeTierTrail;
}

/** The refusal an Admit decision counts in quota_refusals_total, if any. */
function refusalKind(decision: AdmitDecision): string | undefined {
  if (decision.outcome === 'rate-limited') return 'per_minute';
  if (decision.outcome === 'no-place') return 'concurrency';
  if (decision.outcome === 'not-covered') return freeRefusalKind(decision.refusal);
  return undefined;
}

/**
 * The grpc-js implementation of quota.v1.Quota: translation only, the rules are in the domain.
 * A store that cannot answer becomes UNAVAILABLE ("could not decide"), with its cause only in the log.
 * Refusals and store failures are counted here, where every decision passes.
 */
export function quotaGrpc(
  { ledger, freeTier, finisher, leases, admission, lines, storeAudit, freeTierTrail }: QuotaDomain,
  logger: Logger,
): quotaV1.QuotaServer {
  const decide = async <T>(method: string, work: () => Promise<T>): Promise<T> => {
    try {
      return await work();
    } catch (err) {
      if (!(err instanceof StoreUnavailableError)) throw err;
      storeUnavailable.inc({ operation: method });
      logger.warn('store unavailable', { method, err: err.cause });
      throw new RpcError(status.UNAVAILABLE, 'quota store unavailable');
    }
  };

  const countRequest = async (req: quotaV1.CountRequestRequest): Promise<quotaV1.CountRequestResponse> => {
    const counted = await decide('CountRequest', () => ledger.countRequest(req.accountId));
    if (!counted.allowed) refusals.inc({ kind: 'per_minute' });
    return counted;
  };
  const acquirePlace = async (req: quotaV1.AcquirePlaceRequest, metadata: Metadata): Promise<quotaV1.AcquirePlaceResponse> => {
    const lease = placeLease(req, isCaller(metadata, 'edge'));
    // The lease starts beside the place, in the same write to the store rather than a round trip
    // after it, and ends again when no place is given. Should either fail, the edge finishes the
    // request unbilled, which gives back both.
    const [place] = await Promise.all([
      decide('AcquirePlace', () => ledger.acquirePlace(req.accountId, req.requestId)),
      lease && decide('AcquirePlace', () => leases.start(lease)),
    ]);
    if (!place.granted) {
      refusals.inc({ kind: 'concurrency' });
      if (lease) await decide('AcquirePlace', () => leases.end(lease));
    }
    return place;
  };
  const reserveFree = async (req: quotaV1.ReserveFreeRequest): Promise<quotaV1.ReserveFreeResponse> => {
    const decision = await decide('ReserveFree', () => freeTier.reserve(req));
    if (!decision.granted) refusals.inc({ kind: freeRefusalKind(decision.refusal) });
    return toReserveFreeResponse(decision);
  };
  // A FinishRequest without `admitted` is an older edge's: today's path, exactly.
  const finishRequest = (req: quotaV1.FinishRequestRequest): Promise<quotaV1.FinishRequestResponse> =>
    decide('FinishRequest', () => {
      const { admitted } = req;
      return admitted === undefined ? finisher.finish(toSettleRecord(req)) : finisher.finishAdmitted(toAdmittedEnd({ ...req, admitted }));
    });
  const admit = async (req: quotaV1.AdmitRequest, callerGone: () => boolean): Promise<quotaV1.AdmitResponse> => {
    try {
      const decision = await decide('Admit', () => admission.admit(toAdmitRequest(req), callerGone));
      admits.inc({ outcome: decision.outcome.replace('-', '_') });
      const refused = refusalKind(decision);
      if (refused) refusals.inc({ kind: refused });
      return toAdmitResponse(decision);
    } catch (err) {
      if (err instanceof DomainError && err.kind === 'aborted') admits.inc({ outcome: 'gone' });
      throw err;
    }
  };

  return {
    countRequest: unaryHandler(logger, 'CountRequest', countRequest),
    acquirePlace: unaryHandler(logger, 'AcquirePlace', acquirePlace),
    releasePlace: unaryHandler(logger, 'ReleasePlace', (req: quotaV1.ReleasePlaceRequest): Promise<quotaV1.ReleasePlaceResponse> =>
      decide('ReleasePlace', () => ledger.releasePlace(req.accountId, req.requestId, req.promptTokens, req.completionTokens)),
    ),
    getUsage: unaryHandler(logger, 'GetUsage', (req: quotaV1.GetUsageRequest): Promise<quotaV1.GetUsageResponse> =>
      decide('GetUsage', () => ledger.getUsage(req.accountId)),
    ),
    reserveFree: unaryHandler(logger, 'ReserveFree', reserveFree),
    getFreeAllowance: unaryHandler(
      logger,
      'GetFreeAllowance',
      (req: quotaV1.GetFreeAllowanceRequest): Promise<quotaV1.GetFreeAllowanceResponse> =>
        decide('GetFreeAllowance', () => freeTier.allowance(req.accountId)),
    ),
    finishRequest: unaryHandler(logger, 'FinishRequest', finishRequest),
    finishRequests: unaryHandler(
      logger,
      'FinishRequests',
      async (req: quotaV1.FinishRequestsRequest): Promise<quotaV1.FinishRequestsResponse> => {
        const outcomes = await eachOnItsOwn(req.requests, finishRequest, logger, 'FinishRequests');
        return { outcomes: outcomes.map(({ result, errorCode, errorMessage }) => ({ finished: result, errorCode, errorMessage })) };
      },
    ),
    edgeCalls: callStreamHandler(logger, 'EdgeCalls', {
      rpcService: 'quota.v1.Quota',
      methodOf: (request: EdgeRequest) => EDGE_METHODS[request?.$case ?? 'none'],
      serve: async (request: EdgeRequest, callerGone, metadata): Promise<EdgeResponse> => {
        switch (request?.$case) {
          case 'countRequest':
            return { $case: request.$case, value: await countRequest(request.value) };
          case 'acquirePlace':
            return { $case: request.$case, value: await acquirePlace(request.value, metadata) };
          case 'reserveFree':
            return { $case: request.$case, value: await reserveFree(request.value) };
          case 'finishRequest':
            return { $case: request.$case, value: await finishRequest(request.value) };
          case 'admit':
            return { $case: request.$case, value: await admit(request.value, callerGone) };
          default:
            throw new RpcError(status.INVALID_ARGUMENT, 'a call without a request');
        }
      },
    }),
    renewLeases: unaryHandler(logger, 'RenewLeases', async (req: quotaV1.RenewLeasesRequest): Promise<quotaV1.RenewLeasesResponse> => ({
      unknownRequestIds: await decide('RenewLeases', () => leases.renew(req.leases.map(toLeaseRecord))),
    })),
    admit: unaryHandler(logger, 'Admit', (req: quotaV1.AdmitRequest, _metadata, callerGone) => admit(req, callerGone)),
    returnCreditLine: unaryHandler(
      logger,
      'ReturnCreditLine',
      async (req: quotaV1.ReturnCreditLineRequest): Promise<quotaV1.ReturnCreditLineResponse> => {
        const line = await decide('ReturnCreditLine', () => lines.returnNow(req.accountId));
        return { returnedMicroLyd: line.returnedMicro, heldMicroLyd: line.heldMicro };
      },
    ),
    getHeld: unaryHandler(logger, 'GetHeld', async (req: quotaV1.GetHeldRequest): Promise<quotaV1.GetHeldResponse> => ({
      heldMicroLyd: await decide('GetHeld', () => admission.heldMicro(req.accountId)),
    })),
    setFreeTierSettings: unaryHandler(
      logger,
      'SetFreeTierSettings',
      async (req: quotaV1.SetFreeTierSettingsRequest, metadata): Promise<quotaV1.SetFreeTierSettingsResponse> => {
        const by = auditActor(metadata, { reason: req.reason });
        return { settings: await decide('SetFreeTierSettings', () => freeTier.changeSettings(toSettingsChange(req), freeTierTrail, by)) };
      },
    ),
    auditStore: unaryHandler(logger, 'AuditStore', async (): Promise<quotaV1.AuditStoreResponse> => {
      if (!storeAudit) return { violations: [], accountsChecked: 0, checked: false };
      return { ...(await decide('AuditStore', () => storeAudit.run())), checked: true };
    }),
  };
}
