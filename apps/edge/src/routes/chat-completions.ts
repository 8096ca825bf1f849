import { Request, RequestHandler, Response } from 'express';
import { CheckedChatRequest, checkChatRequest } from '@gw/chat-validation';
import { quotaV1 } from '@gw/contracts';
import { Admission, Admitted } from '../admission/admission';
import { newBillingId } from '../domain/billing-id';
import { LeaseKeeper } from '../domain/lease-keeper';
import { KeyDirectory } from '../domain/ports';
import { measurePrompt, promptTokensToHold } from '../domain/prompt-estimate';
import { RequestInFlight } from '../domain/request-in-flight';
import { FinishSender } from '../domain/finish-sender';
import { authenticateCaller, Caller } from '../http/guards/authenticate-caller';
import { BodyBudget } from '../http/guards/body-budget';
import { declaredTooLarge } from '../http/guards/declared-too-large';
import { readBody } from '../http/guards/read-body';
import { recordOf } from '../http/logging/request-record';
import { passVerdict } from '../http/replies/admission-verdict';
import { CallerReply } from '../http/replies/caller-reply';
import { bodyTooLarge } from '../http/replies/front-proxy-reply';
import { ProviderClient } from '../upstream/provider-client';
import { relayProviderReply } from '../upstream/relay-provider-reply';

/** What the chat-completions route needs. */
export interface ChatCompletionsDeps {
  auth: KeyDirectory;
  /** Counts, holds or reserves, and places each request. */
  admission: Admission;
  provider: Pick<ProviderClient, 'send'>;
  finishSender: Pick<FinishSender, 'finish'>;
  leases: Pick<LeaseKeeper, 'keep' | 'replyBegan'>;
  bodyLimitBytes: number;
  /** The bytes of bodies the edge reads at once, shared by every request. */
  bodyBudget: BodyBudget;
  /** Silence from the provider after which the caller is answered without it. */
  providerSilenceMs: number;
}

/**
 * POST /v1/chat/completions: the request's story from key to bill (docs/architecture.md#one-request-start-to-end):
 * authenticate, read the body, admit, relay the provider's reply, finish. Every refusal is
 * thrown as an error and written by the one error handler. Once admitted, the provider's reply
 * is read to its end and finished exactly once, whatever the caller does. What becomes known
 * (account, model, payment, billed usage, provider times) goes to the request's record for its
 * log line and metrics; its replies carry the overhead header.
 */
export function chatCompletionsRoute(deps: ChatCompletionsDeps): RequestHandler {
  return async (req: Request, res: Response) => {
    const record = recordOf(res);
    record.reportsOverhead = true;
    if (declaredTooLarge(req, deps.bodyLimitBytes)) throw bodyTooLarge();
    // The key before the body (docs/architecture.md#one-request-start-to-end): a caller without one cannot make the edge hold a byte of it.
    const caller = await authenticateCaller(req.headers.authorization, deps.auth);
    record.accountId = caller.accountId;
    passVerdict(res, deps.admission.refuseRemembered(caller.accountId));

    const { raw, checked } = await readCheckedBody(req, res, caller, deps);
    record.model = checked.model;
    record.stream = checked.stream;
    const prompt = measurePrompt(checked.body, raw.length, checked.imageCount);
    const promptTokens = promptTokensToHold(prompt);
    // The id the request is held, placed and billed under: always new, unlike the x-request-id
    // a caller may send twice (reusing it must not share a place or a bill with another request).
    const billingId = newBillingId();
    const admitted = passVerdict(
      res,
      await deps.admission.admit({ billingId, accountId: caller.accountId, keyId: caller.keyId, checked, prompt, promptTokens }),
    );
    record.payment = admitted.payment === quotaV1.Payment.PAYMENT_PAID ? 'paid' : 'free';
    record.billingId = billingId;

    const request = inFlight(billingId, caller.accountId, promptTokens, admitted, deps.leases);
    deps.leases.keep(request);

    const reply = new CallerReply(res, deps.providerSilenceMs, record);
    const callerRequestId: string = res.locals.callerRequestId;
    const finished = relayProviderReply(deps.provider, admitted.checked, callerRequestId, reply, record, request.progress).then((read) => {
      const finish = request.ended(read.outcome, read.whole, reply.end);
      record.usage = request.finalBill;
      return finish;
    });
    record.awaits(finished);
    deps.finishSender.finish(finished);
    await reply.done;
  };
}

/**
 * The body, read and checked before the request is admitted. One the edge refuses is still
 * counted (docs/api.md#rate-limits: every request with an accepted key counts), and over the
 * limit its answer is the 429, before any 400.
 */
async function readCheckedBody(
  req: Request,
  res: Response,
  caller: Caller,
  deps: Pick<ChatCompletionsDeps, 'admission' | 'bodyLimitBytes' | 'bodyBudget'>,
): Promise<{ raw: Buffer; checked: CheckedChatRequest }> {
  try {
    const raw = await readBody(req, deps.bodyLimitBytes, deps.bodyBudget);
    return { raw, checked: checkChatRequest(raw.toString('utf8'), caller.models) };
  } catch (err) {
    passVerdict(res, await deps.admission.countRefusedBody(caller.accountId));
    throw err;
  }
}

/**
 * The request in flight, which outlives the caller while the provider's reply is read: it takes
 * only these values, never the body. A stream's lease is renewed as soon as its first part
 * arrives (it may run for minutes).
 */
function inFlight(
  billingId: string,
  accountId: string,
  promptTokens: number,
  admitted: Admitted,
  leases: Pick<LeaseKeeper, 'replyBegan'>,
): RequestInFlight {
  const { payment, hold, byAdmit, admittedAtMs, checked } = admitted;
  const { model, maxTokens, stream } = checked;
  const terms = { billingId, accountId, model, maxTokens, promptTokens, payment, hold, byAdmit, admittedAtMs };
  return new RequestInFlight(terms, stream ? () => leases.replyBegan(billingId) : undefined);
}
