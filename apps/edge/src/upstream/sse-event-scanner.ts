import { readUsage, Usage } from '../domain/provider-usage';

const EMPTY: Buffer = Buffer.alloc(0);
// The provider sends usage in a chunk of its own, with no choices, just before `data: [DONE]`.
// Inside a JSON string the quotes would be escaped, so these bytes only match the chunk itself.
const USAGE_MARK = '"choices":[]';
const DONE_AT_END = /(?:^|\n)data: ?\[DONE\]\r?\n\r?\n$/;

/** Index just past the last blank line (`\n\n` or `\r\n\r\n`) at or before `before`, or -1. */
function lastBoundary(data: Buffer, before: number = data.length): number {
  const lf = data.lastIndexOf('\n\n', before);
  const crlf = data.lastIndexOf('\n\r\n', before);
  if (lf < 0 && crlf < 0) return -1;
  return lf > crlf ? lf + 2 : crlf + 3;
}

/** Index just past the first blank line at or after `from` (the data ends on one). */
function nextBoundary(data: Buffer, from: number): number {
  const ends = [data.indexOf('\n\n', from), data.indexOf('\n\r\n', from)].filter((at) => at >= 0);
  const at = Math.min(...ends);
  return data[at + 1] === 0x0a ? at + 2 : at + 3;
}

/** The JSON of an event's `data:` lines, or undefined. */
function eventJson(event: Buffer): unknown {
  const data = event
    .toString('utf8')
    .split(/\r?\n/)
    .filter((line) => line.startsWith('data:'))
    .map((line) => line.slice(line.startsWith('data: ') ? 6 : 5))
    .join('\n');
  try {
    return JSON.parse(data);
  } catch {
    return undefined;
  }
}

/**
 * Reads a provider's Server-Sent Events as they arrive, without parsing each chunk: it cuts the
 * bytes at event boundaries (only an unfinished event is held back), finds the usage chunk by a
 * byte scan and parses that one alone, drops it when the caller did not ask for usage, and
 * notes whether the stream ended with `data: [DONE]`.
 */
export class SseEventScanner {
  private pending: Buffer = EMPTY;
  private foundUsage: Usage | undefined;
  private sawDone = false;
  private sawEvent = false;

  /** @param passUsage whether the caller asked for the usage chunk (`stream_options.include_usage`). */
  constructor(private readonly passUsage: boolean) {}

  /** Takes the next piece of the provider's stream; returns the whole events to pass on, maybe none. */
  push(piece: Buffer): Buffer {
    const data = this.pending.length === 0 ? piece : Buffer.concat([this.pending, piece]);
    const end = lastBoundary(data);
    if (end < 0) {
      this.pending = data;
      return EMPTY;
    }
    this.pending = data.subarray(end);
    this.sawEvent = true;
    const events = this.takeUsage(data.subarray(0, end));
    if (DONE_AT_END.test(events.subarray(Math.max(0, events.length - 32)).toString('latin1'))) this.sawDone = true;
    return events;
  }

  /** The usage the provider reported, once its chunk has passed. */
  get usage(): Usage | undefined {
    return this.foundUsage;
  }

  /** Whether the last event so far is `data: [DONE]`: the stream is complete. */
  get done(): boolean {
    return this.sawDone;
  }

  /** Whether any whole event has arrived. */
  get anyEvent(): boolean {
    return this.sawEvent;
  }

  private takeUsage(events: Buffer): Buffer {
    const at = events.indexOf(USAGE_MARK);
    if (at < 0) return events;
    const start = Math.max(lastBoundary(events, at), 0);
    const end = nextBoundary(events, at);
    this.foundUsage = readUsage(eventJson(events.subarray(start, end))) ?? this.foundUsage;
    if (this.passUsage) return events;
    return Buffer.concat([events.subarray(0, start), events.subarray(end)]);
  }
}
