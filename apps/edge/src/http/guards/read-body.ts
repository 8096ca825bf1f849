import { IncomingMessage } from 'node:http';
import { BodyBudget } from './body-budget';
import { declaredTooLarge } from './declared-too-large';
import { bodyTooLarge, busyReadingBodies } from '../replies/front-proxy-reply';

/** The caller left before its whole body arrived: there is no one to answer. */
export class CallerLeftError extends Error {
  constructor() {
    super('the caller left before its body arrived');
    this.name = 'CallerLeftError';
  }
}

/**
 * Reads a request body, counting bytes as they arrive (chunked bodies too) and stopping as
 * soon as the limit is passed, so that no more than the limit is ever held; the rest is read
 * and dropped. Over the limit: the front proxy's 413. The body's bytes are taken from `budget`
 * while it is read (its declared length at once, else each piece as it comes); when the budget
 * has no room, the front proxy's 503 at once, the rest dropped. However the read ends (body
 * complete, refused, or the caller gone), the promise settles, the listeners are removed, what
 * was held is let go and the budget is given back.
 */
export function readBody(req: IncomingMessage, limit: number, budget: BodyBudget): Promise<Buffer> {
  // Gone while its key and count were checked: its close has passed and would never be heard.
  if (req.destroyed) return Promise.reject(new CallerLeftError());
  if (declaredTooLarge(req, limit)) return Promise.reject(bodyTooLarge());
  const declared = Number(req.headers['content-length']);
  const known = req.headers['content-length'] !== undefined && Number.isFinite(declared);
  if (known && !budget.take(declared)) {
    req.resume();
    return Promise.reject(busyReadingBodies());
  }
  return new Promise((resolve, reject) => {
    let chunks: Buffer[] = [];
    let size = 0;
    let taken = known ? declared : 0;
    const finish = (outcome: () => void) => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onGone);
      req.off('close', onGone);
      budget.give(taken);
      taken = 0;
      outcome();
    };
    const refuse = (reply: Error) =>
      finish(() => {
        chunks = [];
        req.resume();
        reject(reply);
      });
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) return refuse(bodyTooLarge());
      if (!known) {
        if (!budget.take(chunk.length)) return refuse(busyReadingBodies());
        taken += chunk.length;
      }
      chunks.push(chunk);
    };
    const onEnd = () => finish(() => resolve(Buffer.concat(chunks, size)));
    const onGone = () =>
      finish(() => {
        chunks = [];
        reject(new CallerLeftError());
      });
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onGone);
    req.on('close', onGone);
  });
}
