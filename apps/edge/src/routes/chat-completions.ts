import { randomUUID } from 'node:crypto';
import { Request, RequestHandler, Response } from 'express';
import { checkChatRequest } from '@gw/chat-validation';
import { AppError } from '@gw/errors';
import { microToLyd } from '@gw/money';
import { AuthClient } from '../clients/auth-client';
import { BillingClient } from '../clients/billing-client';
import { QuotaClient } from '../clients/quota-client';
import { billableUsage } from '../domain/billable-usage';
import { estimatePromptTokens } from '../domain/prompt-estimate';
import { Settlement } from '../domain/settlement';
import { authenticateCaller } from '../http/authenticate-caller';
import { CallerReply } from '../http/caller-reply';
import { setRateHeaders } from '../http/rate-headers';
import { readBody } from '../http/read-body';
import { ProviderClient } from '../upstream/provider-client';
import { relayProviderReply } from '../upstream/relay-provider-reply';

/** What the chat-completions route needs. */
export interface ChatCompletionsDeps {
  auth: AuthClient;
  quota: QuotaClient;
  billing: BillingClient;
  provider: ProviderClient;
  settlement: Settlement;
  bodyLimitBytes: number;
  /** Silence from the provider after which the caller is answered without it. */
  providerSilenceMs: number;
}

/**
 * POST /v1/chat/completions: the request's story from key to bill (DESIGN "One request").
 * Every refusal is thrown as an error and written by the one error handler. Once a place is
 * taken, the provider's reply is read to its end and settled exactly once, whatever the caller does.
 */
export function chatCompletionsRoute(deps: ChatCompletionsDeps): RequestHandler {
  return async (req: Request, res: Response) => {
    // The id the request is held, placed and billed under: always new, unlike the x-request-id
    // a caller may send twice (reusing it must not share a place or a bill with another request).
    const requestId = randomUUID();
    const traceId: string = res.locals.requestId;
    const raw = await readBody(req, deps.bodyLimitBytes);
    const caller = await authenticateCaller(req.headers.authorization, deps.auth);

    const count = await deps.quota.countRequest(caller.accountId);
    setRateHeaders(res, count);
    if (!count.allowed) {
      res.setHeader('Retry-After', String(count.retryAfterSeconds));
      throw new AppError('rate_limit_error', `Rate limit reached: ${count.limit} requests per minute.`, { limit: count.limit });
    }

    const checked = checkChatRequest(raw.toString('utf8'), caller.models);
    const promptTokens = estimatePromptTokens(checked.body, checked.imageCount);
    const hold = await deps.billing.authorize({ requestId, accountId: caller.accountId, model: checked.model, promptTokens, maxTokens: checked.maxTokens });
    if (!hold.approved) {
      throw new AppError('FREE_TIER_EXHAUSTED', 'Insufficient balance for this request.', {
        balance: microToLyd(hold.balanceMicroLyd),
        requiredLyd: microToLyd(hold.requiredMicroLyd),
      });
    }

    const place = await deps.quota.acquirePlace(caller.accountId, requestId);
    if (!place.granted) {
      await deps.billing.releaseHold(requestId);
      throw new AppError('concurrency_limit', `Too many requests at once: at most ${place.limit}.`);
    }

    const started = Date.now();
    const reply = new CallerReply(res, deps.providerSilenceMs);
    const outcome = relayProviderReply(deps.provider, checked, traceId, reply);
    deps.settlement.finish(
      outcome.then((read) => ({
        requestId,
        accountId: caller.accountId,
        ...billableUsage(read, { promptTokens, maxTokens: checked.maxTokens, elapsedMs: Date.now() - started }),
      })),
    );
    await reply.done;
  };
}
