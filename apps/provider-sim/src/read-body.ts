import { IncomingMessage } from 'node:http';

/**
 * Reads the whole request body as UTF-8. Past `limitBytes` the rest is read and dropped, and the
 * result is undefined, so the caller can refuse without breaking the connection.
 */
export function readBody(req: IncomingMessage, limitBytes: number): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limitBytes) chunks.push(chunk);
    });
    req.once('end', () => resolve(size <= limitBytes ? Buffer.concat(chunks).toString('utf8') : undefined));
    req.once('error', reject);
  });
}
