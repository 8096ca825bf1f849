import { randomUUID } from 'node:crypto';

/** The shapes of request the chaos load sends. */
export type ChaosKind = 'whole' | 'whole-slow' | 'stream' | 'stream-slow' | 'stream-abort' | 'stream-long';

/** How a request ended for its caller, when it got no HTTP answer. */
export type NoAnswer = 'refused' | 'cut' | 'timeout';

/** What one request came to, as its caller saw it. */
export interface CallRecord {
  accountId: string;
  paid: boolean;
  kind: ChaosKind;
  /** The x-request-id the caller sent; the edge logs it and echoes it. */
  requestId: string;
  /** The x-request-id of the reply, when a reply came. */
  seenRequestId?: string;
  /** Index of the edge replica it went to. */
  edge: number;
  /** The HTTP status, when a reply came. */
  status?: number;
  /** The error code of a JSON error reply. */
  code?: string;
  /** Why no reply came: connection refused, connection lost, or the caller gave up. */
  noAnswer?: NoAnswer;
  /** The reply broke off after its headers (the edge died under it). */
  cutMidReply: boolean;
  /** Some reply text reached the caller. */
  delivered: boolean;
  /** The caller left a stream after its first text, on purpose. */
  aborted: boolean;
  /** A second attempt, at the other edge, of a request that got no answer. */
  retry: boolean;
}

/** One request to send. */
export interface ChaosCall {
  baseUrl: string;
  edge: number;
  key: string;
  accountId: string;
  paid: boolean;
  kind: ChaosKind;
  /** The caller gives up after this long, so the load always ends. */
  giveUpMs: number;
  retry: boolean;
}

// provider-sim directives: how long each kind keeps its place. Small max_tokens keeps holds small
// and stays under the free reply cap of 2,048.
const DIRECTIVES: Record<ChaosKind, string> = {
  whole: '[[sim:delay_ms=200,words=20]]',
  'whole-slow': '[[sim:delay_ms=2500,words=30]]',
  stream: '[[sim:words=20,piece_delay_ms=20]]',
  'stream-slow': '[[sim:words=30,piece_delay_ms=200]]',
  'stream-abort': '[[sim:words=30,piece_delay_ms=200]]',
  'stream-long': '[[sim:words=56,piece_delay_ms=500]]',
};

/** The request body of a kind: free-tier safe (vendor-v4-flash, no thinking, short reply). */
function chaosBody(kind: ChaosKind): Record<string, unknown> {
  return {
    model: 'vendor-v4-flash',
    max_tokens: 200,
    stream: kind.startsWith('stream'),
    messages: [{ role: 'user', content: `${DIRECTIVES[kind]} chaos ${kind}` }],
  };
}

const causeCode = (err: unknown): string | undefined => {
  const cause = (err as { cause?: { code?: string } } | undefined)?.cause;
  return cause?.code;
};

const hasText = (event: string): boolean => {
  try {
    const chunk = JSON.parse(event) as { choices?: { delta?: { content?: string } }[] };
    return Boolean(chunk.choices?.[0]?.delta?.content);
  } catch {
    return false;
  }
};

/**
 * Reads an event stream until it ends (or, for an abort, until the first text), marking the
 * record delivered as soon as text came, so a stream that breaks off later still counts it.
 */
async function readStream(res: Response, record: CallRecord, abort: AbortController): Promise<void> {
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let pending = '';
  for (let read = await reader.read(); !read.done; read = await reader.read()) {
    pending += decoder.decode(read.value, { stream: true });
    const events = pending.split('\n\n');
    pending = events.pop() ?? '';
    if (events.some((event) => event.startsWith('data: ') && hasText(event.slice('data: '.length)))) record.delivered = true;
    if (record.delivered && record.kind === 'stream-abort') {
      record.aborted = true;
      abort.abort();
      return;
    }
  }
}

async function readWhole(res: Response): Promise<{ delivered: boolean; code?: string }> {
  const body = (await res.json()) as { choices?: { message?: { content?: string } }[]; error?: { code?: string } };
  return { delivered: res.status === 200 && Boolean(body.choices?.[0]?.message?.content), code: body.error?.code };
}

/**
 * Sends one chat request with a fresh x-request-id and records what its caller saw. Never
 * throws: a refused connection, a connection lost or a reply that breaks off is recorded.
 */
export async function sendChaosCall(call: ChaosCall): Promise<CallRecord> {
  const record: CallRecord = {
    accountId: call.accountId,
    paid: call.paid,
    kind: call.kind,
    requestId: `chaos-${randomUUID()}`,
    edge: call.edge,
    cutMidReply: false,
    delivered: false,
    aborted: false,
    retry: call.retry,
  };
  const abort = new AbortController();
  const giveUp = setTimeout(() => abort.abort(new Error('given up')), call.giveUpMs);
  let res: Response;
  try {
    res = await fetch(`${call.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${call.key}`, 'content-type': 'application/json', 'x-request-id': record.requestId },
      body: JSON.stringify(chaosBody(call.kind)),
      signal: abort.signal,
    });
  } catch (err) {
    clearTimeout(giveUp);
    record.noAnswer = abort.signal.aborted ? 'timeout' : causeCode(err) === 'ECONNREFUSED' ? 'refused' : 'cut';
    return record;
  }
  record.status = res.status;
  record.seenRequestId = res.headers.get('x-request-id') ?? undefined;
  const isStream = (res.headers.get('content-type') ?? '').startsWith('text/event-stream');
  try {
    if (isStream) await readStream(res, record, abort);
    else Object.assign(record, await readWhole(res));
  } catch {
    if (abort.signal.aborted) record.noAnswer = 'timeout';
    else record.cutMidReply = true;
  } finally {
    clearTimeout(giveUp);
  }
  return record;
}
