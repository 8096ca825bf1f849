import { randomUUID } from 'node:crypto';
import { NextFunction, Request, Response } from 'express';
import { withRequestId } from '@gw/telemetry';

const SAFE_ID = /^[\x21-\x7e]{1,200}$/;

/** Gives every reply an x-request-id: the caller's own when it sent a usable one, else a new one. */
export function callerRequestId(req: Request, res: Response, next: NextFunction): void {
  const given = req.headers['x-request-id'];
  const id = typeof given === 'string' && SAFE_ID.test(given) ? given : randomUUID();
  res.locals.callerRequestId = id;
  res.setHeader('x-request-id', id);
  // The rest of the request runs with the id in its trace's baggage: every service's log lines
  // and the edge's span carry it. The trace id is our own, whatever the caller sent.
  withRequestId(id, next);
}
