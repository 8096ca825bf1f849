import { Request, RequestHandler, Response } from 'express';
import { CheckedChatRequest, checkChatRequest } from '@gw/chat-validation';
import { quotaV1 } from '@gw/contracts';
import { newBillingId } from '../domain/billing-id';
import { KeyDirectory } from '../domain/ports';
import { QuotaClient } from '../clients/quota-client';
import { BillableUsage, billableUsage } from '../domain/billable-usage';
import { LeaseKeeper } from '../domain/lease-keeper';
import { MinuteRefusals } from '../domain/minute-refusals';
import { measurePrompt, promptTokensToHold } from '../domain/prompt-estimate';
import { ReplyProgress } from '../domain/reply-progress';
import { FinishedRequest, Settlement } from '../domain/settlement';
import { authenticateCaller } from '../http/guards/authenticate-caller';
import { BodyBudget } from '../http/guards/body-budget';
import { CallerReply } from '../http/replies/caller-reply';
import { declaredTooLarge } from '../http/guards/declared-too-large';
import { bodyTooLarge } from '../http/replies/front-proxy-reply';
import { readBody } from '../http/guards/read-body';
import { recordOf } from '../http/logging/request-record';
import { ProviderClient } from '../upstream/provider-client';
import { endReasonOf } from '../domain/end-reason';
import { relayProviderReply } from '../upstream/relay-provider-reply';
import { ChatAdmission, countOnly, LeaseOf, refuseRememberedOverLimit } from './chat-admission';

const { PAYMENT_PAID: PAID } = quotaV1.Payment;

/** What the chat-completions route needs. */
export interface ChatCompletionsDeps {
  auth: KeyDirectory;
  quota: QuotaClient;
  /** Accounts refused in the current minute, which the edge refuses itself until it ends. */
  minuteRefusals: MinuteRefusals;
  /** Counts, holds or reserves, and places each request (one Admit). */
  admission: ChatAdmission;
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
 * POST /v1/chat/completions: the request's story from key to bill (docs/architecture.md#one-request-start-to-end).
 * Every refusal is thrown as an error and written by the one error handler. Once a place is
 * taken, the provider's reply is read to its end and settled exactly once, whatever the caller does.
 * What becomes known (account, model, payment, billed usage, provider times) goes to the
 * request's record for its log line and metrics; its replies carry the overhead header.
 */
export function chatCompletionsRoute(deps: ChatCompletionsDeps): RequestHandler {
  return async (req: Request, res: Response) => {
    // The id the request is held, placed and billed under: always new, unlike the x-request-id
    // a caller may send twice (reusing it must not share a place or a bill with another request).
    const billingId = newBillingId();
    const callerRequestId: string = res.locals.callerRequestId;
    const record = recordOf(res);
    record.reportsOverhead = true;
    if (declaredTooLarge(req, deps.bodyLimitBytes)) throw bodyTooLarge();
    // The key before the body (docs/architecture.md#one-request-start-to-end): a caller without one cannot make the edge hold a byte of it.
    const caller = await authenticateCaller(req.headers.authorization, deps.auth);
    record.accountId = caller.accountId;

    const { accountId } = caller;
    refuseRememberedOverLimit(deps, res, accountId);

    // The body is judged before the request is admitted; one the edge refuses is still counted
    // (docs/api.md#rate-limits: every request with an accepted key counts), and over the limit its answer is the 429, before any 400.
    let checked: CheckedChatRequest;
    let raw: Buffer;
    try {
      raw = await readBody(req, deps.bodyLimitBytes, deps.bodyBudget);
      checked = checkChatRequest(raw.toString('utf8'), caller.models);
    } catch (err) {
      await countOnly(deps, res, accountId);
      throw err;
    }
    record.model = checked.model;
    record.stream = checked.stream;
    const prompt = measurePrompt(checked.body, raw.length, checked.imageCount);
    const promptTokens = promptTokensToHold(prompt);

    // While it runs, the request's lease carries what it would be billed if it broke off now;
    // once the reply is read, its final bill until the finish lands. A stream's lease is renewed
    // as soon as its first part arrives (it may run for minutes); a whole reply is finished as
    // soon as it arrives, and that finish is its bill.
    const progress = new ReplyProgress(checked.stream ? () => deps.leases.replyBegan(billingId) : undefined);
    let final: BillableUsage | undefined;
    let endReason: quotaV1.EndReason | undefined;
    const leaseOf: LeaseOf =
      ({ payment, model, maxTokens, hold, byAdmit, admittedAtMs }) =>
      () => ({
        accountId,
        requestId: billingId,
        model,
        payment,
        ...(final ?? progress.billableNow({ promptTokens, maxTokens })).usage,
        hold,
        maxTokens: byAdmit ? maxTokens : undefined,
        admittedAtMs,
        endReason,
      });
    const admitted = await deps.admission.admit(res, { billingId, accountId, checked, prompt, promptTokens }, leaseOf);
    record.payment = admitted.payment === PAID ? 'paid' : 'free';
    record.billingId = billingId;
    // The closures below outlive the caller while the provider's reply is read: they take only
    // these values, never the request body they come from.
    const forwarded = admitted.checked;
    const { payment, hold, byAdmit, admittedAtMs } = admitted;
    const { model, maxTokens } = forwarded;
    const finished = (usage: BillableUsage): FinishedRequest => ({
      billingId,
      accountId,
      model,
      payment,
      ...usage,
      hold,
      admitted: byAdmit ? true : undefined,
      admittedAtMs,
      endReason,
    });
    deps.leases.keep(billingId, leaseOf({ payment, model, maxTokens, hold, byAdmit, admittedAtMs }));

    const started = Date.now();
    const reply = new CallerReply(res, deps.providerSilenceMs, record);
    const billed = relayProviderReply(deps.provider, forwarded, callerRequestId, reply, record, progress).then((read) => {
      final = billableUsage(read.outcome, { promptTokens, maxTokens, elapsedMs: Date.now() - started });
      endReason = endReasonOf(read.whole, reply.end);
      record.usage = final;
      return finished(final);
    });
    record.awaits(billed);
    deps.settlement.finish(billed);
    await reply.done;
  };
}
