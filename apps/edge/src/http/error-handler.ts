import { ErrorRequestHandler } from 'express';
import { buildErrorBody, ErrorDescription } from '@gw/errors';
import { Logger } from '@gw/service-kit';
import { BodyTooLargeError } from './read-body';

const hasDescription = (err: unknown): err is { describe(): ErrorDescription } =>
  typeof err === 'object' && err !== null && typeof (err as { describe?: unknown }).describe === 'function';

const TOO_LARGE_HTML = '<html><head><title>413 Request Entity Too Large</title></head><body><h1>413 Request Entity Too Large</h1></body></html>\n';

/**
 * The edge's one error writer: every refusal and fault becomes `{error:{...}}` here, except the
 * replies of the servers in front of the API (413 HTML), which carry no x-request-id.
 */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (err: unknown, _req, res, _next) => {
    if (res.headersSent) {
      res.destroy();
      return;
    }
    if (err instanceof BodyTooLargeError) {
      res.removeHeader('x-request-id');
      res.status(413).setHeader('Content-Type', 'text/html');
      res.setHeader('Connection', 'close');
      res.end(TOO_LARGE_HTML);
      return;
    }
    let description: ErrorDescription;
    if (hasDescription(err)) {
      description = err.describe();
    } else {
      logger.error('request failed', { requestId: res.locals.requestId, err });
      description = { status: 500, code: 'INTERNAL_ERROR', message: 'The server had an error while processing your request.' };
    }
    res.status(description.status).json(buildErrorBody(description));
  };
}
