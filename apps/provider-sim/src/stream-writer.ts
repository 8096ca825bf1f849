import { ServerResponse } from 'node:http';
import { pause } from './pause';
import { CompletionChunk } from './stream-chunks';

/** How a stream is paced and whether it breaks. */
export interface StreamPacing {
  /** Wait between two events. */
  pieceDelayMs: number;
  /** Destroy the socket after this many chunks, before `[DONE]`; undefined to finish normally. */
  breakAfter: number | undefined;
}

/** How a reply ended. */
export type ReplyOutcome = 'done' | 'broken' | 'gone';

/**
 * Writes a Server-Sent Events stream: each chunk as `data: <json>\n\n` in a write of its own, then
 * `data: [DONE]\n\n`. Waits for each write to reach the socket, so a client that stops reading
 * holds the stream back rather than filling memory.
 */
export async function writeStream(
  res: ServerResponse,
  chunks: readonly CompletionChunk[],
  pacing: StreamPacing,
  signal: AbortSignal,
): Promise<ReplyOutcome> {
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
  const events = chunks.map((chunk) => `data: ${JSON.stringify(chunk)}\n\n`);
  const breakAt = pacing.breakAfter === undefined ? undefined : Math.min(pacing.breakAfter, events.length);
  if (breakAt === undefined) events.push('data: [DONE]\n\n');
  for (const [index, event] of events.entries()) {
    if (index > 0 && pacing.pieceDelayMs > 0 && !(await pause(pacing.pieceDelayMs, signal))) return 'gone';
    if (!(await writeEvent(res, event, signal))) return 'gone';
    if (index + 1 === breakAt) {
      res.destroy();
      return 'broken';
    }
  }
  res.end();
  return 'done';
}

function writeEvent(res: ServerResponse, event: string, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted || res.destroyed) return Promise.resolve(false);
  return new Promise((resolve) => {
    const onAbort = () => resolve(false);
    signal.addEventListener('abort', onAbort, { once: true });
    res.write(event, (err) => {
      signal.removeEventListener('abort', onAbort);
      resolve(!err);
    });
  });
}
