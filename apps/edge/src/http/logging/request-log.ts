import { Request, RequestHandler, Response } from 'express';
import { Logger } from '@gw/service-kit';
import { chatRequestsTotal, limitRefusals, providerSeconds, providerTtfbSeconds, requestSeconds, requestsTotal } from '../../edge-metrics';
import { RequestRecord } from './request-record';

const CHAT_ROUTE = '/v1/chat/completions';
const ms = (value: number) => Math.round(value * 1000) / 1000;
const since = (from: number | undefined, to: number | undefined) => (from === undefined || to === undefined ? undefined : to - from);

/** What the log line needs of the caller's request and reply, taken when the reply is over. */
interface ReplyFacts {
  /** The reply's x-request-id (the caller's own, or a new one): logged as `requestId`, the field every service's lines carry. */
  callerRequestId: string;
  method: string;
  path: string;
  /** The route the request matched (`/v1/models/:id`), or `unmatched`: a path not served, or refused before routing. */
  route: string;
  status: number;
  /** Whether the whole reply went out (else the caller left first). */
  sent: boolean;
}

const factsOf = (req: Request, res: Response): ReplyFacts => ({
  callerRequestId: res.locals.callerRequestId,
  method: req.method,
  path: req.path,
  route: (req.route as { path?: string } | undefined)?.path ?? 'unmatched',
  status: res.statusCode,
  sent: res.writableFinished,
});

/**
 * The code of a finished request: the error code the caller got (`front_proxy` for the front
 * proxy's pages), `caller_gone` when the caller left before its reply was out, else `ok`.
 */
const codeOf = (record: RequestRecord, reply: ReplyFacts): string => record.errorCode ?? (reply.sent ? 'ok' : 'caller_gone');

/** Writes the request's one log line and counts it, once it is over. */
function over(logger: Logger, reply: ReplyFacts, record: RequestRecord): void {
  const { route, status } = reply;
  const code = codeOf(record, reply);
  const durationMs = (record.replyEndedAt ?? record.startedAt) - record.startedAt;
  const providerTtfbMs = since(record.providerCalledAt, record.providerAnsweredAt);
  const providerMs = since(record.providerCalledAt, record.providerEndedAt);
  logger.info('request', {
    requestId: reply.callerRequestId,
    method: reply.method,
    path: reply.path,
    route,
    status,
    code,
    accountId: record.accountId,
    model: record.model,
    stream: record.stream,
    payment: record.payment,
    billingId: record.billingId,
    promptTokens: record.usage?.usage.promptTokens,
    completionTokens: record.usage?.usage.completionTokens,
    usageEstimated: record.usage?.usageEstimated,
    durationMs: ms(durationMs),
    overheadMs: record.overheadMs === undefined ? undefined : ms(record.overheadMs),
    providerTtfbMs: providerTtfbMs === undefined ? undefined : ms(providerTtfbMs),
    providerMs: providerMs === undefined ? undefined : ms(providerMs),
  });
  requestsTotal.inc({ route, status, code });
  requestSeconds.observe({ route }, durationMs / 1000);
  const model = record.model ?? 'none';
  if (route === CHAT_ROUTE) chatRequestsTotal.inc({ model, code });
  const stream = record.stream ? 'true' : 'false';
  if (providerTtfbMs !== undefined) providerTtfbSeconds.observe({ stream, model }, providerTtfbMs / 1000);
  if (providerMs !== undefined) providerSeconds.observe({ stream }, providerMs / 1000);
  if (record.gatewayRefusal && (status === 429 || status === 402)) limitRefusals.inc({ kind: code });
}

/**
 * The first middleware: gives the request its {@link RequestRecord} and, once the request is
 * over (its reply ended and, for a chat request, the provider's reply read to the end), writes
 * exactly one JSON line for it and records its metrics. The line carries the caller-visible
 * request id, what is known of account, model, payment and tokens, the status and code, and
 * the durations (whole request, provider time to first byte and in all, the gateway's
 * overhead); never a key, a header or any content.
 */
export function requestLog(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const taken: { reply?: ReplyFacts } = {};
    const record = recordLoggedWhenOver(logger, taken);
    res.locals.record = record;
    res.once('close', () => {
      taken.reply = factsOf(req, res);
      record.replyEnded();
    });
    next();
  };
}

/**
 * A record whose line is written from `taken` alone: built apart from the request's scope so
 * that a record kept while the provider's reply is still read holds neither request nor reply.
 */
function recordLoggedWhenOver(logger: Logger, taken: { reply?: ReplyFacts }): RequestRecord {
  return new RequestRecord((done) => over(logger, taken.reply as ReplyFacts, done));
}
