import { quotaV1 } from '@gw/contracts';
import { DomainError } from '@gw/errors';
import {
  auditActor,
  callStreamHandler,
  chained,
  eachOnItsOwn,
  isCaller,
  Logger,
  MoneyAudit,
  ONEOF_DISPATCHING,
  RpcHandlers,
  rpcService,
  ServedService,
  serverChain,
} from '@gw/service-kit';
import { Admission, AdmitDecision } from '../domain/admission';
import { FreeTierGate, FreeTierTrail } from '../domain/free-tier-gate';
import { StoreAuditReport, StoreViolation } from '../domain/store-audit';
import { LineReturner } from '../domain/line-returner';
import { QuotaLedger } from '../domain/quota-ledger';
import { RequestFinisher } from '../domain/request-finisher';
import { RequestLeases } from '../domain/request-leases';
import { admits, freeRefusalKind, refusals } from '../quota-metrics';
import { toAdmitRequest, toAdmitResponse, toAdmittedEnd } from './admit-messages';
import { toLeaseRecord, toReserveFreeResponse, toSettingsChange, toSettleRecord } from './free-tier-messages';
import { isChatTurn, placeAsk, placeCaller } from './place-caller';
import { placeLease } from './place-lease';
import { storeUnavailableStep } from './store-unavailable-step';

/** The rules quota.v1.Quota serves. */
export interface QuotaDomain {
  ledger: QuotaLedger;
  freeTier: FreeTierGate;
  finisher: RequestFinisher;
  leases: RequestLeases;
  admission: Admission;
  lines: LineReturner;
  /** The audit of the store; none when it is in memory. */
  storeAudit?: MoneyAudit<StoreViolation, StoreAuditReport>;
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
 * quota.v1.Quota: translation only, the rules are in the domain. Every call passes the server
 * chain, with quota-service's own step: a store that cannot answer becomes UNAVAILABLE. Refusals
 * are counted here, where every decision passes.
 */
export function quotaGrpc(
  { ledger, freeTier, finisher, leases, admission, lines, storeAudit, freeTierTrail }: QuotaDomain,
  logger: Logger,
): ServedService {
  // A FinishRequest without `admitted` is an older edge's: today's path, exactly.
  const finishRequest = (req: quotaV1.FinishRequestRequest): Promise<quotaV1.FinishRequestResponse> => {
    const { admitted } = req;
    return admitted === undefined ? finisher.finish(toSettleRecord(req)) : finisher.finishAdmitted(toAdmittedEnd({ ...req, admitted }));
  };

  const storeStep = storeUnavailableStep(logger);
  // Each of a batch's finishes fails as its own FinishRequest would.
  const finishOne = chained([storeStep], finishRequest);

  const handlers: RpcHandlers<quotaV1.QuotaService> = {
    async countRequest(req, { metadata }) {
      const counted = await ledger.countRequest(req.accountId, isChatTurn(metadata));
      if (!counted.allowed) refusals.inc({ kind: 'per_minute' });
      return counted;
    },
    async acquirePlace(req, { metadata }) {
      const lease = placeLease(req, isCaller(metadata, 'edge'));
      // The lease starts beside the place, in the same write to the store rather than a round trip
      // after it, and ends again when no place is given (also when the id's place is another
      // caller's). Should the store fail, the edge finishes the request unbilled, which gives back both.
      const [placed, started] = await Promise.allSettled([
        ledger.acquirePlace(req.accountId, req.requestId, placeAsk(metadata)),
        lease && leases.start(lease),
      ]);
      if (placed.status === 'rejected') {
        if (lease && started.status === 'fulfilled' && placed.reason instanceof DomainError) await leases.end(lease);
        throw placed.reason;
      }
      if (started.status === 'rejected') throw started.reason;
      const place = placed.value;
      if (!place.granted) {
        refusals.inc({ kind: place.rateLimited ? 'per_minute' : 'concurrency' });
        if (lease) await leases.end(lease);
      }
      return place;
    },
    releasePlace: (req, { metadata }) =>
      ledger.releasePlace(req.accountId, req.requestId, req.promptTokens, req.completionTokens, placeCaller(metadata)),
    getUsage: (req) => ledger.getUsage(req.accountId),
    async reserveFree(req) {
      const decision = await freeTier.reserve(req);
      if (!decision.granted) refusals.inc({ kind: freeRefusalKind(decision.refusal) });
      return toReserveFreeResponse(decision);
    },
    getFreeAllowance: (req) => freeTier.allowance(req.accountId),
    finishRequest,
    async finishRequests(req, context) {
      const asSingle = { ...context, method: 'FinishRequest' };
      const outcomes = await eachOnItsOwn(req.requests, (one) => finishOne(one, asSingle), logger, 'FinishRequests');
      return { outcomes: outcomes.map(({ result, errorCode, errorMessage }) => ({ finished: result, errorCode, errorMessage })) };
    },
    renewLeases: async (req) => ({ unknownRequestIds: await leases.renew(req.leases.map(toLeaseRecord)) }),
    async admit(req, { callerGone }) {
      try {
        const decision = await admission.admit(toAdmitRequest(req), callerGone);
        admits.inc({ outcome: decision.outcome.replace('-', '_') });
        const refused = refusalKind(decision);
        if (refused) refusals.inc({ kind: refused });
        return toAdmitResponse(decision);
      } catch (err) {
        if (err instanceof DomainError && err.kind === 'aborted') admits.inc({ outcome: 'gone' });
        throw err;
      }
    },
    async returnCreditLine(req) {
      const line = await lines.returnNow(req.accountId);
      return { returnedMicroLyd: line.returnedMicro, heldMicroLyd: line.heldMicro };
    },
    getHeld: async (req) => ({ heldMicroLyd: await admission.heldMicro(req.accountId) }),
    async setFreeTierSettings(req, { metadata }) {
      const by = auditActor(metadata, { reason: req.reason });
      return { settings: await freeTier.changeSettings(toSettingsChange(req), freeTierTrail, by) };
    },
    async auditStore() {
      if (!storeAudit) return { violations: [], accountsChecked: 0, checked: false, repairingLines: [] };
      return { ...(await storeAudit.run()), checked: true };
    },
  };

  return rpcService(quotaV1.QuotaService, handlers, serverChain(logger, [storeStep]), (methods) => ({
    edgeCalls: callStreamHandler('EdgeCalls', methods, ONEOF_DISPATCHING),
  }));
}
