/** A small seeded random source (mulberry32), so a failing fuzz run can be repeated. */
export class Random {
  constructor(private state: number) {}

  next(): number {
    this.state = (this.state + 0x6d2b79f5) | 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  int(max: number): number {
    return Math.floor(this.next() * max);
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)];
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  /** Printable ASCII, sometimes Latin-1: what a header value may carry. */
  headerText(maxLength: number): string {
    return Array.from({ length: this.int(maxLength) + 1 }, () =>
      String.fromCharCode(this.chance(0.95) ? 0x20 + this.int(95) : 0xa0 + this.int(96)),
    ).join('');
  }
}

const FIELDS = [
  'model',
  'messages',
  'stream',
  'max_tokens',
  'max_completion_tokens',
  'tools',
  'tool_choice',
  'response_format',
  'n',
  'stop',
  'temperature',
  'top_logprobs',
  'thinking',
  'reasoning_effort',
  'stream_options',
  'functions',
  'function_call',
  '__proto__',
  'constructor',
];

function randomValue(r: Random, depth = 0): unknown {
  switch (r.int(depth > 3 ? 7 : 10)) {
    case 0:
      return null;
    case 1:
      return r.chance(0.5);
    case 2:
      return r.pick([0, -1, 1, 1.5, 2, 33, 32768, 32769, 1e308, -1e308, Number.MAX_SAFE_INTEGER + 2]);
    case 3:
      return r.pick([
        '',
        'vendor-v4-flash',
        'vendor-v4-pro',
        'user',
        'system',
        'tool',
        'json_schema',
        'json_object',
        'none',
        'auto',
        '\u0000',
        '\ud800',
        '🙂'.repeat(50),
        '<|endoftext|><|im_start|>system',
      ]);
    case 4:
      return 'x'.repeat(r.int(5000));
    case 5:
      return { role: r.pick(['user', 'assistant', 'system', 'tool', 'wizard', 5]), content: randomValue(r, depth + 1) };
    case 6:
      return {
        type: r.pick(['image_url', 'image', 'text', 'function', 'json_schema']),
        image_url: { url: r.pick(['data:image/png;base64,AAAA', 'https://x/unreadable', 7]) },
        text: 'hi',
      };
    case 7:
      return Array.from({ length: r.int(5) }, () => randomValue(r, depth + 1));
    case 8:
      return Object.fromEntries(Array.from({ length: r.int(4) }, () => [r.pick(FIELDS), randomValue(r, depth + 1)]));
    default:
      return Array.from({ length: r.int(40) }, () => ({ type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } }));
  }
}

const VALID = { model: 'vendor-v4-flash', max_tokens: 8, messages: [{ role: 'user', content: 'fuzz' }] };

/** A request body: a valid one with fields changed, dropped or added, then maybe broken as text. */
export function fuzzBody(r: Random): string {
  const body: Record<string, unknown> = { ...VALID };
  for (let i = r.int(4); i >= 0; i--) {
    const field = r.pick(FIELDS);
    if (r.chance(0.2)) delete body[field];
    else body[field] = randomValue(r);
  }
  let text = JSON.stringify(body);
  switch (r.int(12)) {
    case 0:
      return text.slice(0, r.int(text.length));
    case 1: {
      const at = r.int(text.length);
      return text.slice(0, at) + String.fromCharCode(r.int(0x3000)) + text.slice(at + 1);
    }
    case 2:
      return `${'['.repeat(1000 + r.int(100000))}`;
    case 3:
      return `{"messages":${'['.repeat(200)}${']'.repeat(200)},"model":"vendor-v4-flash"}`;
    case 4:
      return `\ufeff${text}`;
    case 5:
      return text.replace(/"/g, "'");
    case 6:
      return r.pick(['', 'null', 'true', '[]', '{}', '"str"', '1e999', '{"model":"vendor-v4-flash",}', '{"a":1}{"b":2}']);
    default:
      text = text.replace('"fuzz"', JSON.stringify(r.headerText(40)));
      return text;
  }
}

const CONTENT_TYPES = [
  'application/json',
  'application/json; charset=utf-16',
  'text/plain',
  'multipart/form-data; boundary=x',
  'application/x-www-form-urlencoded',
  'a/b/c',
  '',
];

/** Headers a caller could send: real ones with odd values and made-up ones. */
export function fuzzHeaders(r: Random, key: string): Record<string, string> {
  const headers: Record<string, string> = {};
  if (r.chance(0.85)) headers['content-type'] = r.pick(CONTENT_TYPES);
  headers.authorization = r.chance(0.75)
    ? r.pick([`Bearer ${key}`, `bearer    ${key}`, `BEARER ${key}`])
    : r.pick([
        'Bearer',
        `Bearer "${key}"`,
        `Basic ${key}`,
        `Bearer ${key} x`,
        `Bearer sk-${r.headerText(60).replace(/\s/g, '')}`,
        r.headerText(200),
      ]);
  if (r.chance(0.3)) headers['x-request-id'] = r.chance(0.5) ? r.headerText(300) : `id-${r.int(5)}`;
  if (r.chance(0.3)) headers['user-agent'] = r.headerText(100);
  if (r.chance(0.2)) headers['content-encoding'] = r.pick(['gzip', 'br', 'identity', 'x']);
  if (r.chance(0.2)) headers['accept'] = r.pick(['text/event-stream', '*/*', 'application/xml', r.headerText(50)]);
  if (r.chance(0.2)) headers[`x-${r.int(1000)}-fuzz`] = r.headerText(2000);
  return headers;
}

/** Byte sequences that are not valid HTTP/1.1, each sent on a connection of its own. */
export const MALFORMED_REQUESTS: readonly string[] = [
  'GARBAGE\r\n\r\n',
  'POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nBad Header: y\r\n\r\n',
  'POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nno-colon\r\n\r\n',
  'POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello',
  'POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n',
  'POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
  'POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n',
  `GET /v1/models HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
  'GET /v1/models HTTP/1.1\r\nHost: x\r\nX-Folded: a\r\n  b\r\n\r\n',
  'GET /v1/mo dels HTTP/1.1\r\nHost: x\r\n\r\n',
  'GET /v1/models HTTP/9.9\r\nHost: x\r\n\r\n',
  'GET /v1/models HTTP/1.1\r\nHost: x\r\nX-Nul: a\u0000b\r\n\r\n',
];
