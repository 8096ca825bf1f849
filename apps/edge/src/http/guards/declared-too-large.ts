import { IncomingMessage } from 'node:http';

/**
 * Whether a request declares a body over `limit` (Content-Length): the front proxy answers it
 * with its 413 at once, before the key is looked at and before a byte of the body is read.
 */
export function declaredTooLarge(req: IncomingMessage, limit: number): boolean {
  const declared = Number(req.headers['content-length']);
  return req.headers['content-length'] !== undefined && Number.isFinite(declared) && declared > limit;
}
