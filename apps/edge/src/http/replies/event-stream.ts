import { Response } from 'express';
import { ErrorBody } from '@gw/errors';

/**
 * Opens a Server-Sent Events reply: status 200 and its headers go out at once, and nothing on
 * the way may buffer it (`X-Accel-Buffering: no` for proxies, `Cache-Control: no-cache`).
 */
export function openEventStream(res: Response): void {
  res.status(200);
  res.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
  res.setHeader('Cache-Control', 'no-cache');
  res.setHeader('X-Accel-Buffering', 'no');
  res.flushHeaders();
}

/** Whether `res` is an event stream whose headers are already out. */
export function isEventStream(res: Response): boolean {
  return res.headersSent && String(res.getHeader('Content-Type') ?? '').startsWith('text/event-stream');
}

/**
 * The one way an event stream ends with an error: a single `data: {"error":{...}}` event and
 * no `data: [DONE]`, so that clients of the wire format (the openai npm client first) raise it.
 */
export function endEventStreamWithError(res: Response, body: ErrorBody): void {
  if (res.writableEnded || res.destroyed) return;
  res.end(`data: ${JSON.stringify(body)}\n\n`);
}
