import { RequestHandler } from 'express';
import { Logger } from '@gw/service-kit';

/** One JSON line per request once its reply is done: request id, route, status, duration. Never a header or body. */
export function accessLog(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    res.once('close', () => {
      logger.info('request', {
        requestId: res.locals.requestId,
        method: req.method,
        path: req.path,
        status: res.statusCode,
        completed: res.writableFinished,
        durationMs: Number(process.hrtime.bigint() - started) / 1e6,
      });
    });
    next();
  };
}
