import { randomUUID } from 'node:crypto';
import { Request, RequestHandler, Response } from 'express';
import { CheckedChatRequest, checkChatRequest } from '@gw/chat-validation';
import { quotaV1 } from '@gw/contracts';
import { AppError } from '@gw/errors';
import { KeyLookup } from '../domain/cached-key-lookup';
import { BillingClient } from '../clients/billing-client';
import { QuotaClient } from '../clients/quota-client';
import { asksThinking } from '../domain/asks-thinking';
import { BillableUsage, billableUsage } from '../domain/billable-usage';
import { capReplyTokens } from '../domain/cap-reply-tokens';
import { freeTierRefusal } from '../domain/free-tier-refusal';
import { LeaseKeeper } from '../domain/lease-keeper';
import { MinuteCount, MinuteRefusals } from '../domain/minute-refusals';
import { measurePrompt, PromptMeasure, promptTokensToHold } from '../domain/prompt-estimate';
import { ReplyProgress } from '../domain/reply-progress';
import { FinishedRequest, Settlement } from '../domain/settlement';
import { localRateRefusals } from '../edge-metrics';
import { authenticateCaller } from '../http/authenticate-caller';
import { BodyBudget } from '../http/body-budget';
import { CallerReply } from '../http/caller-reply';
import { declaredTooLarge } from '../http/declared-too-large';
import { bodyTooLarge } from '../http/front-proxy-reply';
import { setRateHeaders } from '../http/rate-headers';
import { readBody } from '../http/read-body';
import { recordOf } from '../http/request-record';
import { ProviderClient } from '../upstream/provider-client';
import { relayProviderReply } from '../upstream/relay-provider-reply';

const { PAYMENT_PAID: PAID, PAYMENT_FREE: FREE } = quotaV1.Payment;
const NOTHING_BILLED: BillableUsage = { usage: { promptTokens: 0, completionTokens: 0 }, usageEstimated: false };

interface PaymentQuestion {
  requestId: string;
  accountId: string;
  checked: CheckedChatRequest;
  prompt: PromptMeasure;
  promptTokens: number;
}

/** The end of a request that bills nothing: gives back its hold or free reservation, and its place. */
const unbilled = (q: Pick<PaymentQuestion, 'requestId' | 'accountId'>, model: string, payment: quotaV1.Payment): FinishedRequest => ({
  requestId: q.requestId,
  accountId: q.accountId,
  model,
  payment,
  ...NOTHING_BILLED,
});

/**
 * SPEC 8 and 7 rules 1-2: the worst case held against the balance; when the balance does not
 * cover it, the request is tried as a free request (its reply capped), else refused with a 402.
 * A call that fails may still have held or reserved (its answer lost on the way): the request
 * is then finished unbilled, which gives back whatever was taken, durably and retried.
 */
async function payFor(deps: ChatCompletionsDeps, q: PaymentQuestion): Promise<{ payment: quotaV1.Payment; checked: CheckedChatRequest }> {
  const giveBack = (payment: quotaV1.Payment) => (err: unknown) => {
    deps.settlement.finish(unbilled(q, q.checked.model, payment));
    throw err;
  };
  const hold = await deps.billing
    .authorize({ requestId: q.requestId, accountId: q.accountId, model: q.checked.model, promptTokens: q.promptTokens, maxTokens: q.checked.maxTokens })
    .catch(giveBack(PAID));
  if (hold.approved) return { payment: PAID, checked: q.checked };
  const free = await deps.quota.reserveFree({
    accountId: q.accountId,
    requestId: q.requestId,
    model: q.checked.model,
    thinking: asksThinking(q.checked.body),
    textPromptTokens: q.prompt.textTokens,
    imageCount: q.prompt.imageCount,
    newMessageTokens: q.prompt.newMessageTokens,
    jsonBytes: q.prompt.jsonBytes,
    maxTokens: q.checked.maxTokens,
  }).catch(giveBack(FREE));
  if (!free.granted) throw freeTierRefusal(free.refusal, hold);
  return { payment: FREE, checked: capReplyTokens(q.checked, free.maxTokens) };
}

/**
 * Counts the request in its account's clock minute (SPEC 8 rule 1). An account quota-service
 * refused earlier in this minute is refused by the edge itself, with the figures quota-service
 * would give, until the minute ends (MinuteRefusals). Such a request still counts under SPEC 8
 * rule 1 like every request with an accepted key; counting it would change nothing, since the
 * account is over the limit and a refused count writes nothing (quota-service's COUNT_REQUEST).
 */
async function countInMinute(deps: ChatCompletionsDeps, accountId: string): Promise<MinuteCount> {
  const refused = deps.minuteRefusals.refusal(accountId);
  if (refused) {
    localRateRefusals.inc();
    return refused;
  }
  const ticket = deps.minuteRefusals.ticket();
  const count = await deps.quota.countRequest(accountId);
  deps.minuteRefusals.remember(accountId, count, ticket);
  return count;
}

/** What the chat-completions route needs. */
export interface ChatCompletionsDeps {
  auth: KeyLookup;
  quota: QuotaClient;
  /** Accounts refused in the current minute, which the edge refuses itself until it ends. */
  minuteRefusals: MinuteRefusals;
  billing: BillingClient;
  provider: ProviderClient;
  settlement: Settlement;
  leases: LeaseKeeper;
  bodyLimitBytes: number;
  /** The bytes of bodies the edge reads at once, shared by every request. */
  bodyBudget: BodyBudget;
  /** Silence from the provider after which the caller is answered without it. */
  providerSilenceMs: number;
}

/**
 * POST /v1/chat/completions: the request's story from key to bill (DESIGN "One request").
 * Every refusal is thrown as an error and written by the one error handler. Once a place is
 * taken, the provider's reply is read to its end and settled exactly once, whatever the caller does.
 * What becomes known (account, model, payment, billed usage, provider times) goes to the
 * request's record for its log line and metrics; its replies carry the overhead header.
 */
export function chatCompletionsRoute(deps: ChatCompletionsDeps): RequestHandler {
  return async (req: Request, res: Response) => {
    // The id the request is held, placed and billed under: always new, unlike the x-request-id
    // a caller may send twice (reusing it must not share a place or a bill with another request).
    const requestId = randomUUID();
    const traceId: string = res.locals.requestId;
    const record = recordOf(res);
    record.reportsOverhead = true;
    if (declaredTooLarge(req, deps.bodyLimitBytes)) throw bodyTooLarge();
    // The key before the body (DESIGN step 2): a caller without one cannot make the edge hold a byte of it.
    const caller = await authenticateCaller(req.headers.authorization, deps.auth);
    record.accountId = caller.accountId;

    const count = await countInMinute(deps, caller.accountId);
    setRateHeaders(res, count);
    if (!count.allowed) {
      res.setHeader('Retry-After', String(count.retryAfterSeconds));
      throw new AppError('rate_limit_error', `Rate limit reached: ${count.limit} requests per minute.`, { limit: count.limit });
    }

    const raw = await readBody(req, deps.bodyLimitBytes, deps.bodyBudget);
    const checked = checkChatRequest(raw.toString('utf8'), caller.models);
    record.model = checked.model;
    record.stream = checked.stream;
    const prompt = measurePrompt(checked.body, raw.length, checked.imageCount);
    const promptTokens = promptTokensToHold(prompt);
    const paying = await payFor(deps, { requestId, accountId: caller.accountId, checked, prompt, promptTokens });
    record.payment = paying.payment === PAID ? 'paid' : 'free';
    record.billingId = requestId;
    const forwarded = paying.checked;
    // The closures below outlive the caller while the provider's reply is read: they take only
    // these values, never the request body they come from.
    const { accountId } = caller;
    const { payment } = paying;
    const { model, maxTokens } = forwarded;
    const finished = (usage: BillableUsage): FinishedRequest => ({ requestId, accountId, model, payment, ...usage });

    // While it runs, the request's lease carries what it would be billed if it broke off now;
    // once the reply is read, its final bill until the finish lands.
    const progress = new ReplyProgress();
    let final: BillableUsage | undefined;
    const leaseNow = (): quotaV1.Lease => ({ accountId, requestId, model, payment, ...(final ?? progress.billableNow({ promptTokens, maxTokens })).usage });
    const place = await deps.quota.acquirePlace(accountId, requestId, leaseNow()).catch((err: unknown) => {
      // The limits cannot be checked: refuse (fail closed), and give back what was taken.
      deps.settlement.finish(finished(NOTHING_BILLED));
      throw err;
    });
    if (!place.granted) {
      deps.settlement.finish(finished(NOTHING_BILLED));
      throw new AppError('concurrency_limit', `Too many requests at once: at most ${place.limit}.`);
    }
    deps.leases.keep(requestId, leaseNow);

    const started = Date.now();
    const reply = new CallerReply(res, deps.providerSilenceMs, record);
    const billed = relayProviderReply(deps.provider, forwarded, traceId, reply, record, progress).then((read) => {
      final = billableUsage(read, { promptTokens, maxTokens, elapsedMs: Date.now() - started });
      record.usage = final;
      return finished(final);
    });
    record.awaits(billed);
    deps.settlement.finish(billed);
    await reply.done;
  };
}
