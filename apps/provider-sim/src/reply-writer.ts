import { ServerResponse } from 'node:http';
import { ChatRequest } from './chat-request';
import { completionBody } from './completion-body';
import { providerErrorBody } from './provider-error';
import { newReplyMeta } from './reply-meta';
import { ReplyPlan } from './reply-plan';
import { sendJson } from './send-json';
import { SimDirectives } from './sim-directives';
import { streamChunks } from './stream-chunks';
import { ReplyOutcome, writeStream } from './stream-writer';

const HTML_BODY =
  '<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n</body>\r\n</html>\r\n';

/**
 * Sends the reply the directives call for: no answer at all, an HTML or empty body, an error
 * status, a broken reply, or the planned completion (streamed when the request asked for it).
 */
export async function writeReply(
  res: ServerResponse,
  request: ChatRequest,
  plan: ReplyPlan,
  directives: SimDirectives,
  signal: AbortSignal,
): Promise<ReplyOutcome> {
  if (directives.drop) {
    res.destroy();
    return 'broken';
  }
  const status = directives.status ?? 200;
  if (directives.nonJson) {
    res.writeHead(status, { 'content-type': 'text/html', 'content-length': Buffer.byteLength(HTML_BODY) });
    res.end(HTML_BODY);
    return 'done';
  }
  if (directives.empty) {
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': 0 });
    res.end();
    return 'done';
  }
  if (directives.status !== undefined) {
    sendJson(res, status, providerErrorBody(status, faultMessage(status)));
    return 'done';
  }
  const meta = newReplyMeta(request.model);
  if (request.stream) {
    const pacing = { pieceDelayMs: directives.pieceDelayMs ?? 0, breakAfter: directives.breakAfter };
    return writeStream(res, streamChunks(plan, meta, request.includeUsage), pacing, signal);
  }
  const body = Buffer.from(JSON.stringify(completionBody(plan, meta)));
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length });
  if (directives.breakAfter === undefined) {
    res.end(body);
    return 'done';
  }
  res.write(body.subarray(0, Math.min(directives.breakAfter, body.length - 1)), () => res.destroy());
  return 'broken';
}

function faultMessage(status: number): string {
  if (status === 429) return 'Rate limit reached for requests. Please try again later. (simulated)';
  if (status >= 500) return `The server had an error while processing your request. (simulated ${status})`;
  return `The request was refused. (simulated ${status})`;
}
