import { quotaV1 } from '@gw/contracts';
import { DomainError } from '@gw/errors';
import { chained, eachOnItsOwn, isCaller, Logger, RpcHandlers } from '@gw/service-kit';
import { FreeTierGate } from '../../domain/free-tier-gate';
import { OlderRequestFinisher } from '../../domain/legacy/older-request-finisher';
import { AccountLimits } from '../../domain/account-limits';
import { RequestLeases } from '../../domain/request-leases';
import { freeRefusalKind, refusals } from '../../quota-metrics';
import { toReserveFreeResponse, toRequestUsage } from '../free-tier-messages';
import { placeAsk } from '../place-caller';
import { storeUnavailableStep } from '../store-unavailable-step';
import { placeLease } from './place-lease';

type Handlers = RpcHandlers<quotaV1.QuotaService>;

/** What the older edge's calls are served by. */
export interface OlderEdgeDomain {
  limits: AccountLimits;
  freeTier: FreeTierGate;
  leases: RequestLeases;
  finisher: OlderRequestFinisher;
}

/**
 * quota.v1's calls of an edge of the release before Admit, which counts, holds at billing-service,
 * reserves and places in turn: ReserveFree, FinishRequests, an AcquirePlace that starts a lease and
 * a FinishRequest without `admitted`. Each is served on top of `current`, whose handlers take
 * every other call.
 */
export function withOlderEdgeCalls(current: Handlers, { limits, freeTier, leases, finisher }: OlderEdgeDomain, logger: Logger): Handlers {
  // A FinishRequest without `admitted` is an older edge's: the older path, exactly.
  const finishRequest: Handlers['finishRequest'] = (req, context) =>
    req.admitted === undefined ? finisher.finish(toRequestUsage(req)) : current.finishRequest(req, context);
  // Each of a batch's finishes fails as its own FinishRequest would.
  const finishOne = chained([storeUnavailableStep(logger)], finishRequest);

  return {
    ...current,
    async acquirePlace(req, context) {
      const { metadata } = context;
      const lease = placeLease(req, isCaller(metadata, 'edge'));
      if (!lease) return current.acquirePlace(req, context);
      // The lease starts beside the place, in the same write to the store rather than a round trip
      // after it, and ends again when no place is given (also when the id's place is another
      // caller's). Should the store fail, the edge finishes the request unbilled, which gives back both.
      const [placed, started] = await Promise.allSettled([
        limits.acquirePlace(req.accountId, req.requestId, placeAsk(metadata)),
        leases.start(lease),
      ]);
      if (placed.status === 'rejected') {
        if (started.status === 'fulfilled' && placed.reason instanceof DomainError) await leases.end(lease);
        throw placed.reason;
      }
      if (started.status === 'rejected') throw started.reason;
      const place = placed.value;
      if (!place.granted) {
        refusals.inc({ kind: place.rateLimited ? 'per_minute' : 'concurrency' });
        await leases.end(lease);
      }
      return place;
    },
    async reserveFree(req) {
      const decision = await freeTier.reserve(req);
      if (!decision.granted) refusals.inc({ kind: freeRefusalKind(decision.refusal) });
      return toReserveFreeResponse(decision);
    },
    finishRequest,
    async finishRequests(req, context) {
      const asSingle = { ...context, method: 'FinishRequest' };
      const outcomes = await eachOnItsOwn(req.requests, (one) => finishOne(one, asSingle), logger, 'FinishRequests');
      return { outcomes: outcomes.map(({ result, errorCode, errorMessage }) => ({ finished: result, errorCode, errorMessage })) };
    },
  };
}
