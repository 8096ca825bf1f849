import { SseEventScanner } from './sse-event-scanner';

const chunk = (content: string) =>
  `data: {"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"${content}"}}]}\n\n`;
const USAGE =
  'data: {"id":"c","object":"chat.completion.chunk","choices":[],"usage":{"prompt_tokens":12,"completion_tokens":3,"total_tokens":15}}\n\n';
const DONE = 'data: [DONE]\n\n';
const text = (b: Buffer) => b.toString('utf8');

describe('SseEventScanner', () => {
  it('passes whole events on as they come and sees [DONE]', () => {
    const s = new SseEventScanner(true);
    expect(text(s.push(Buffer.from(chunk('Hi'))))).toBe(chunk('Hi'));
    expect(s.done).toBe(false);
    expect(text(s.push(Buffer.from(DONE)))).toBe(DONE);
    expect(s.done).toBe(true);
    expect(s.anyEvent).toBe(true);
  });

  it('holds back only an unfinished event, also one cut inside a UTF-8 character', () => {
    const s = new SseEventScanner(true);
    const whole = Buffer.from(chunk('é') + chunk('ü'));
    const cut = whole.indexOf('é') + 1;
    expect(text(s.push(whole.subarray(0, cut)))).toBe('');
    expect(s.anyEvent).toBe(false);
    expect(text(s.push(whole.subarray(cut, cut + 5)))).toBe('');
    expect(text(s.push(whole.subarray(cut + 5)))).toBe(chunk('é') + chunk('ü'));
  });

  it('reads the usage chunk and passes it on when the caller asked', () => {
    const s = new SseEventScanner(true);
    expect(text(s.push(Buffer.from(chunk('a') + USAGE + DONE)))).toBe(chunk('a') + USAGE + DONE);
    expect(s.usage).toEqual({ promptTokens: 12, completionTokens: 3 });
  });

  it('drops the usage chunk when the caller did not ask, still reading it', () => {
    const s = new SseEventScanner(false);
    expect(text(s.push(Buffer.from(chunk('a') + USAGE)))).toBe(chunk('a'));
    expect(text(s.push(Buffer.from(DONE)))).toBe(DONE);
    expect(s.usage).toEqual({ promptTokens: 12, completionTokens: 3 });
    expect(s.done).toBe(true);
  });

  it('finds a usage chunk split over pieces', () => {
    const s = new SseEventScanner(false);
    const all = Buffer.from(chunk('a') + USAGE + DONE);
    const out = [all.subarray(0, 90), all.subarray(90, 140), all.subarray(140)].map((p) => text(s.push(p))).join('');
    expect(out).toBe(chunk('a') + DONE);
    expect(s.usage).toEqual({ promptTokens: 12, completionTokens: 3 });
  });

  it('is not fooled by the marker inside a content string', () => {
    const s = new SseEventScanner(false);
    const tricky = chunk('\\"choices\\":[] and data: [DONE]');
    expect(text(s.push(Buffer.from(tricky)))).toBe(tricky);
    expect(s.usage).toBeUndefined();
    expect(s.done).toBe(false);
  });

  it('reads CRLF line endings', () => {
    const s = new SseEventScanner(false);
    const crlf = (e: string) => e.replace(/\n/g, '\r\n');
    expect(text(s.push(Buffer.from(crlf(chunk('a') + USAGE + DONE))))).toBe(crlf(chunk('a') + DONE));
    expect(s.usage).toEqual({ promptTokens: 12, completionTokens: 3 });
    expect(s.done).toBe(true);
  });

  it('does not call a stream done when more came after [DONE] than a blank line', () => {
    const s = new SseEventScanner(true);
    s.push(Buffer.from(DONE + chunk('late')));
    expect(s.done).toBe(false);
  });
});
