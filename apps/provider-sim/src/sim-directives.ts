/**
 * Faults and shapes asked for by a test, read from `[[sim:...]]` markers in the last user message.
 * Markers may repeat and each may hold several items separated by commas, semicolons or spaces:
 * `[[sim:delay_ms=500]]`, `[[sim:status=503, non_json]]`, `[[sim:words=3]] [[sim:piece_delay_ms=20]]`, `[[sim:drop]]`.
 */
export interface SimDirectives {
  /** Wait this long before answering. */
  delayMs?: number;
  /** Wait this long between two pieces of a stream. */
  pieceDelayMs?: number;
  /** Stream: destroy the socket after this many chunks (never `[DONE]`). Whole reply: after this many body bytes (never all). */
  breakAfter?: number;
  /** Answer with this status (400..599) and a provider-format error body. */
  status?: number;
  /** Answer with an HTML body instead of JSON (status 200 unless `status` is also given). */
  nonJson?: true;
  /** Answer with an empty body (status 200 unless `status` is also given). */
  empty?: true;
  /** Close the connection without answering at all (after `delay_ms`, if given): the provider seems down. */
  drop?: true;
  /** Reply length in words, before max_tokens cuts it. */
  words?: number;
}

/** What {@link parseDirectives} found in a text. */
export interface ParsedDirectives {
  directives: SimDirectives;
  /** The text with every marker removed, for the echo. */
  text: string;
  /** One line per item that could not be read; empty when all were fine. */
  problems: string[];
}

type NumberKey = 'delayMs' | 'pieceDelayMs' | 'breakAfter' | 'status' | 'words';

const NUMBER_ITEMS = new Map<string, { key: NumberKey; min: number; max: number }>([
  ['delay_ms', { key: 'delayMs', min: 0, max: 3_600_000 }],
  ['piece_delay_ms', { key: 'pieceDelayMs', min: 0, max: 600_000 }],
  ['break_after', { key: 'breakAfter', min: 1, max: 10_000_000 }],
  ['status', { key: 'status', min: 400, max: 599 }],
  ['words', { key: 'words', min: 0, max: 100_000 }],
]);
const FLAG_ITEMS = new Map<string, 'nonJson' | 'empty' | 'drop'>([
  ['non_json', 'nonJson'],
  ['empty', 'empty'],
  ['drop', 'drop'],
]);
const MARKER = /\[\[sim:([^\]]*)\]\]/g;

/** Reads every `[[sim:...]]` marker in `text`; pure. A later item of the same name wins. */
export function parseDirectives(text: string): ParsedDirectives {
  const directives: SimDirectives = {};
  const problems: string[] = [];
  for (const match of text.matchAll(MARKER)) {
    for (const item of match[1].split(/[\s,;]+/).filter((part) => part !== '')) {
      const problem = readItem(item, directives);
      if (problem) problems.push(problem);
    }
  }
  return { directives, text: text.replace(MARKER, ' ').trim(), problems };
}

function readItem(item: string, into: SimDirectives): string | undefined {
  const [name, value, ...rest] = item.split('=');
  const flag = FLAG_ITEMS.get(name);
  if (flag) {
    if (value !== undefined) return `sim directive ${name} takes no value`;
    into[flag] = true;
    return undefined;
  }
  const spec = NUMBER_ITEMS.get(name);
  if (!spec) return `unknown sim directive "${name}"`;
  if (value === undefined || rest.length > 0 || !/^\d+$/.test(value)) {
    return `sim directive ${name} needs a whole number, as in ${name}=${spec.min}`;
  }
  const number = Number(value);
  if (number < spec.min || number > spec.max) return `sim directive ${name} must be ${spec.min}..${spec.max}`;
  into[spec.key] = number;
  return undefined;
}
