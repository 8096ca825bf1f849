import { IncomingMessage } from 'node:http';
import { bodyTooLarge } from './front-proxy-reply';

/**
 * Reads a request body, counting bytes as they arrive (chunked bodies too) and stopping as
 * soon as the limit is passed, so that no more than the limit is ever held; the rest is read
 * and dropped. Over the limit: the front proxy's 413.
 */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) return Promise.reject(bodyTooLarge());
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.off('data', onData);
        chunks.length = 0;
        req.resume();
        reject(bodyTooLarge());
        return;
      }
      chunks.push(chunk);
    };
    req.on('data', onData);
    req.on('end', () => resolve(Buffer.concat(chunks, size)));
    req.on('error', reject);
  });
}
