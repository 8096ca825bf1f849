import { Request, RequestHandler, Response } from 'express';
import { checkChatRequest } from '@gw/chat-validation';
import { AppError } from '@gw/errors';
import { microToLyd } from '@gw/money';
import { Logger } from '@gw/service-kit';
import { AuthClient } from '../clients/auth-client';
import { BillingClient } from '../clients/billing-client';
import { QuotaClient } from '../clients/quota-client';
import { estimatePromptTokens } from '../domain/prompt-estimate';
import { readUsage, Usage } from '../domain/provider-usage';
import { Settlement } from '../domain/settlement';
import { authenticateCaller } from '../http/authenticate-caller';
import { setRateHeaders } from '../http/rate-headers';
import { readBody } from '../http/read-body';
import { ProviderClient, ProviderReply } from '../upstream/provider-client';
import { refusalFromReply } from '../upstream/provider-refusal';

const NO_USAGE: Usage = { promptTokens: 0, completionTokens: 0 };

/** What the chat-completions route needs. */
export interface ChatCompletionsDeps {
  auth: AuthClient;
  quota: QuotaClient;
  billing: BillingClient;
  provider: ProviderClient;
  settlement: Settlement;
  bodyLimitBytes: number;
  logger: Logger;
}

/**
 * POST /v1/chat/completions: the request's story from key to bill (DESIGN "One request").
 * Every refusal is thrown as an error and written by the one error handler.
 */
export function chatCompletionsRoute(deps: ChatCompletionsDeps): RequestHandler {
  return async (req: Request, res: Response) => {
    const requestId: string = res.locals.requestId;
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

    let reply: ProviderReply;
    try {
      reply = await deps.provider.complete(checked.body, requestId);
    } catch (err) {
      deps.settlement.finish({ requestId, accountId: caller.accountId, usage: NO_USAGE, usageEstimated: true });
      throw err;
    }
    const parsed = safeJson(reply.body);
    const usage = (reply.status < 300 && readUsage(parsed)) || NO_USAGE;
    deps.settlement.finish({ requestId, accountId: caller.accountId, usage, usageEstimated: false });
    if (reply.status >= 300 || parsed === undefined) throw refusalFromReply(reply);
    res.status(reply.status).setHeader('Content-Type', reply.contentType ?? 'application/json');
    res.end(reply.body);
  };
}

function safeJson(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
}
