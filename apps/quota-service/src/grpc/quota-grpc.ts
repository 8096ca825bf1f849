import { status } from '@grpc/grpc-js';
import { quotaV1 } from '@gw/contracts';
import { DomainError } from '@gw/errors';
import {
  auditActor,
  callStreamHandler,
  Logger,
  MoneyAudit,
  ONEOF_DISPATCHING,
  RpcError,
  RpcHandlers,
  rpcService,
  ServedService,
  serverChain,
} from '@gw/service-kit';
import { Admission, AdmitDecision } from '../domain/admission';
import { FreeTierGate, FreeTierTrail } from '../domain/free-tier-gate';
import { StoreAuditReport, StoreViolation } from '../domain/store-audit';
import { LineReturner } from '../domain/line-returner';
import { AccountLimits } from '../domain/account-limits';
import { RequestFinisher } from '../domain/request-finisher';
import { RequestLeases } from '../domain/request-leases';
import { admits, freeRefusalKind, refusals } from '../quota-metrics';
import { toAdmitRequest, toAdmitResponse, toFinishReport } from './admit-messages';
import { toLeaseRecord, toSettingsChange } from './free-tier-messages';
import { isChatTurn, placeAsk, placeCaller } from './place-caller';
import { storeUnavailableStep } from './store-unavailable-step';

/** The rules quota.v1.Quota serves. */
export interface QuotaDomain {
  limits: AccountLimits;
  freeTier: FreeTierGate;
  finisher: RequestFinisher;
  leases: RequestLeases;
  admission: Admission;
  lines: LineReturner;
  /** The audit of the store; none when it is in memory. */
  storeAudit?: MoneyAudit<StoreViolation, StoreAuditReport>;
  freeTierTrail: FreeTierTrail;
}

type Handlers = RpcHandlers<quotaV1.QuotaService>;

/** The calls of an older release, served on top of the current ones while that release is (legacy/older-edge-calls.ts). */
export type OlderCalls = (current: Handlers, domain: QuotaDomain) => Handlers;

/** A method of the contract kept only for an older release, once no older release is served. */
const notServed = (): Promise<never> =>
  Promise.reject(new RpcError(status.UNIMPLEMENTED, 'a method of an older release, no longer served'));

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
export function quotaGrpc(domain: QuotaDomain, logger: Logger, withOlder: OlderCalls = (current) => current): ServedService {
  const { limits, freeTier, finisher, leases, admission, lines, storeAudit, freeTierTrail } = domain;
  const storeStep = storeUnavailableStep(logger);

  const handlers: Handlers = {
    async countRequest(req, { metadata }) {
      const counted = await limits.countRequest(req.accountId, isChatTurn(metadata));
      if (!counted.allowed) refusals.inc({ kind: 'per_minute' });
      return counted;
    },
    async acquirePlace(req, { metadata }) {
      const place = await limits.acquirePlace(req.accountId, req.requestId, placeAsk(metadata));
      if (!place.granted) refusals.inc({ kind: place.rateLimited ? 'per_minute' : 'concurrency' });
      return place;
    },
    releasePlace: (req, { metadata }) =>
      limits.releasePlace(req.accountId, req.requestId, req.promptTokens, req.completionTokens, placeCaller(metadata)),
    getUsage: (req) => limits.getUsage(req.accountId),
    reserveFree: notServed,
    getFreeAllowance: (req) => freeTier.allowance(req.accountId),
    async finishRequest(req) {
      const { admitted } = req;
      if (admitted === undefined)
        throw new RpcError(status.INVALID_ARGUMENT, 'admitted must be set: the request was admitted by Admit or not');
      return finisher.finishAdmitted(toFinishReport({ ...req, admitted }));
    },
    finishRequests: notServed,
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

  return rpcService(quotaV1.QuotaService, withOlder(handlers, domain), serverChain(logger, [storeStep]), (methods) => ({
    edgeCalls: callStreamHandler('EdgeCalls', methods, ONEOF_DISPATCHING),
  }));
}
