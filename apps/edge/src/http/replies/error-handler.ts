import { ErrorRequestHandler, Response } from 'express';
import { AppError, buildErrorBody, ErrorDescription } from '@gw/errors';
import { Logger } from '@gw/service-kit';
import { endEventStreamWithError, isEventStream } from './event-stream';
import { FrontProxyReply } from './front-proxy-reply';
import { recordOf } from '../logging/request-record';

const hasDescription = (err: unknown): err is { describe(): ErrorDescription } =>
  typeof err === 'object' && err !== null && typeof (err as { describe?: unknown }).describe === 'function';

/** What an error is answered with; an unknown error is logged once and never shown. */
function describe(err: unknown, res: Response, logger: Logger): ErrorDescription {
  if (hasDescription(err)) return err.describe();
  // The router could not decode a path parameter: no such path is served.
  if (err instanceof URIError) return { status: 404, code: 'NOT_FOUND', message: 'Unknown path.' };
  logger.error('request failed', { requestId: res.locals.callerRequestId, err });
  return { status: 500, code: 'INTERNAL_ERROR', message: 'The server had an error while processing your request.' };
}

/** Writes a front proxy reply as such a server would: none of the API's headers, no x-request-id. */
function writeFrontProxyReply(res: Response, reply: FrontProxyReply): void {
  for (const name of res.getHeaderNames()) res.removeHeader(name);
  // No Connection: close on a 413 or 503: closing while the client still sends would reset the
  // connection before it reads the page. Node reads and drops the rest of the body instead.
  res.status(reply.status).setHeader('Content-Type', reply.contentType);
  for (const [name, value] of Object.entries(reply.headers)) res.setHeader(name, value);
  res.end(reply.body);
}

/**
 * The edge's one error writer. Every refusal and fault becomes `{error:{...}}` here, with the
 * request's overhead header when it reports one; a front proxy reply (403 1010, 413, 503, 504) is
 * written as that proxy would, without any of the API's headers; and an error that comes once
 * an event stream is open ends the stream with one error event (the one way a stream fails).
 * The code the caller got goes to the request's record (its log line and metrics).
 */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (err: unknown, _req, res, _next) => {
    // The caller went away (or Node already answered a malformed request): nothing to write,
    // and the request's log line says caller_gone.
    if (res.destroyed) return;
    const record = recordOf(res);
    if (res.headersSent) {
      if (!isEventStream(res)) {
        res.destroy();
        return;
      }
      const description = describe(err, res, logger);
      record.failed(description.code, err instanceof AppError);
      endEventStreamWithError(res, buildErrorBody(description));
      return;
    }
    if (err instanceof FrontProxyReply) {
      record.failed('front_proxy', true);
      writeFrontProxyReply(res, err);
      return;
    }
    const description = describe(err, res, logger);
    record.failed(description.code, err instanceof AppError);
    record.stampOverhead(res);
    res.status(description.status).json(buildErrorBody(description));
  };
}
