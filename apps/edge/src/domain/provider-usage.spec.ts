import { MAX_COMPLETION_TOKENS, MAX_PROMPT_TOKENS } from '@gw/bounds';
import { readUsage } from './provider-usage';

const reply = (prompt_tokens: unknown, completion_tokens: unknown) => ({ usage: { prompt_tokens, completion_tokens } });

describe("readUsage: the provider's counts, each a whole number within its bound (what quota- and billing-service take)", () => {
  it('takes counts within the bounds as they are, the bounds included', () => {
    expect(readUsage(reply(1200, 34))).toEqual({ promptTokens: 1200, completionTokens: 34 });
    expect(readUsage(reply(MAX_PROMPT_TOKENS, MAX_COMPLETION_TOKENS))).toEqual({
      promptTokens: MAX_PROMPT_TOKENS,
      completionTokens: MAX_COMPLETION_TOKENS,
    });
  });

  it.each([
    [MAX_PROMPT_TOKENS + 1, MAX_COMPLETION_TOKENS + 1, MAX_PROMPT_TOKENS, MAX_COMPLETION_TOKENS],
    [2 ** 62, 2 ** 52, MAX_PROMPT_TOKENS, MAX_COMPLETION_TOKENS],
    [Infinity, JSON.parse('1e400'), MAX_PROMPT_TOKENS, MAX_COMPLETION_TOKENS],
    [-5, -Infinity, 0, 0],
    [10.2, 3.5, 11, 4],
  ])('reads prompt %p and completion %p as %p and %p', (prompt, completion, promptTokens, completionTokens) => {
    expect(readUsage(reply(prompt, completion))).toEqual({ promptTokens, completionTokens });
  });

  it('reads no usage from a reply without numbers', () => {
    expect(readUsage({})).toBeUndefined();
    expect(readUsage(reply('12', 3))).toBeUndefined();
    expect(readUsage(null)).toBeUndefined();
  });
});
