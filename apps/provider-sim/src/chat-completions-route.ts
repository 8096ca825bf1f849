import { IncomingMessage, ServerResponse } from 'node:http';
import { Logger } from '@gw/service-kit';
import { parseChatRequest } from './chat-request';
import { pause } from './pause';
import { providerErrorBody } from './provider-error';
import { readBody } from './read-body';
import { planReply } from './reply-plan';
import { writeReply } from './reply-writer';
import { sendJson } from './send-json';
import { parseDirectives } from './sim-directives';
import { SimStats } from './sim-stats';

/** Bodies past this size are refused with 413, far above the gateway's own 2 MB limit. */
export const MAX_BODY_BYTES = 16 * 1024 * 1024;

/** What the chat route needs. */
export interface ChatRouteDeps {
  /** When set, the only key accepted. */
  apiKey: string | undefined;
  stats: SimStats;
  logger: Logger;
}

/**
 * POST /v1/chat/completions: checks the key and the request as the provider does, reads the sim
 * markers of the last user message, then answers with the planned reply or the fault asked for.
 */
export function chatCompletionsRoute(deps: ChatRouteDeps): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  const { apiKey, stats, logger } = deps;
  return async (req, res) => {
    res.once('close', stats.begin(req.headers.authorization));
    const gone = new AbortController();
    res.once('close', () => gone.abort());
    if (apiKey !== undefined && req.headers.authorization !== `Bearer ${apiKey}`) {
      req.resume();
      sendJson(res, 401, providerErrorBody(401, 'Incorrect API key provided.'));
      return;
    }
    const raw = await readBody(req, MAX_BODY_BYTES);
    if (raw === undefined) {
      sendJson(res, 413, providerErrorBody(413, `Request body over ${MAX_BODY_BYTES} bytes.`, null, 'request_too_large'));
      return;
    }
    const parsed = parseChatRequest(raw);
    if (!parsed.ok) {
      const { status, message, param } = parsed.refusal;
      sendJson(res, status, providerErrorBody(status, message, param));
      return;
    }
    const { directives, text, problems } = parseDirectives(parsed.request.lastUserText);
    if (problems.length > 0) {
      sendJson(res, 400, providerErrorBody(400, `provider-sim: ${problems.join('; ')}`, 'messages'));
      return;
    }
    const plan = planReply(parsed.request, text, directives.words);
    if (directives.delayMs !== undefined && !(await pause(directives.delayMs, gone.signal))) return;
    const outcome = await writeReply(res, parsed.request, plan, directives, gone.signal);
    logger.debug('chat completion', { model: parsed.request.model, stream: parsed.request.stream, directives, outcome });
  };
}
