import { MAX_BODY_BYTES, MAX_PROMPT_TOKENS } from '@gw/bounds';
import { measurePrompt, promptTokensToHold } from './prompt-estimate';

describe('measurePrompt (a tokenizer, not a character count)', () => {
  it('counts the tokens of every message text plus a small overhead per message', () => {
    const body = {
      messages: [
        { role: 'system', content: 'You are terse.' },
        { role: 'user', content: 'Hello there' },
      ],
    };
    const m = measurePrompt(body, 100, 0);
    expect(m.textTokens).toBeGreaterThan(4);
    expect(m.textTokens).toBeLessThan(30);
    expect(m.newMessageTokens).toBeLessThan(m.textTokens);
  });

  it('grows with words, not with characters: 1,000 repeated words are far fewer than 4,000 tokens', () => {
    const text = 'hello '.repeat(1000);
    const m = measurePrompt({ messages: [{ role: 'user', content: text }] }, text.length, 0);
    expect(m.textTokens).toBeGreaterThan(900);
    expect(m.textTokens).toBeLessThan(1100);
  });

  it('leaves image data out of the text and of the JSON size, and counts the tool definitions', () => {
    const url = `data:image/png;base64,${'A'.repeat(10_000)}`;
    const body = {
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'what is this' },
            { type: 'image_url', image_url: { url } },
          ],
        },
      ],
      tools: [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object' } } }],
    };
    const raw = JSON.stringify(body);
    const m = measurePrompt(body, Buffer.byteLength(raw), 1);
    expect(m.jsonBytes).toBe(Buffer.byteLength(raw) - url.length);
    expect(m.textTokens).toBeLessThan(100);
    expect(m.imageCount).toBe(1);
    expect(promptTokensToHold(m)).toBe(Math.ceil((m.textTokens * 11) / 10) + 1024);
  });

  it('takes the last user message as the new message', () => {
    const body = {
      messages: [
        { role: 'user', content: 'a '.repeat(500) },
        { role: 'assistant', content: 'ok' },
        { role: 'user', content: 'short' },
      ],
    };
    expect(measurePrompt(body, 10, 0).newMessageTokens).toBeLessThan(10);
  });

  it('keeps every figure within what quota- and billing-service take: a context window of prompt, 2 MB of JSON', () => {
    expect(promptTokensToHold({ textTokens: MAX_PROMPT_TOKENS, imageCount: 32, newMessageTokens: 0, jsonBytes: 0 })).toBe(
      MAX_PROMPT_TOKENS,
    );
    expect(promptTokensToHold({ textTokens: 900_000, imageCount: 0, newMessageTokens: 0, jsonBytes: 0 })).toBe(990_000);
    expect(measurePrompt({ messages: [{ role: 'user', content: 'hi' }] }, MAX_BODY_BYTES + 1, 0).jsonBytes).toBe(MAX_BODY_BYTES);
  });
});
