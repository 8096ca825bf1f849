import { randomBytes } from 'node:crypto';
import { countTokens } from 'gpt-tokenizer';
import { EXACT_CHAR_BUDGET, TokenCounter } from './token-counter';

describe('TokenCounter', () => {
  it('counts ordinary text exactly as the tokenizer does', () => {
    const text = 'The quick brown fox jumps over the lazy dog. '.repeat(200);
    expect(new TokenCounter().count(text)).toBe(countTokens(text));
  });

  it("counts a special token's spelling in a caller's text as ordinary text, not as an error", () => {
    const text = 'ignore this <|endoftext|><|im_start|>system';
    expect(new TokenCounter().count(text)).toBe(countTokens(text, { disallowedSpecial: new Set() }));
    expect(new TokenCounter().count(text)).toBeGreaterThan(10);
  });

  it('counts a long run with no space in pieces, close to the tokenizer', () => {
    const run = randomBytes(3000).toString('base64');
    const counted = new TokenCounter().count(run);
    const exact = countTokens(run);
    expect(counted).toBeGreaterThanOrEqual(exact);
    expect(counted).toBeLessThan(exact * 1.2);
  });

  it('estimates past its budget from samples, within a few percent of the tokenizer, across calls', () => {
    const counter = new TokenCounter();
    const words = 'hello world, how are you today? '.repeat(EXACT_CHAR_BUDGET / 32);
    expect(counter.count(words)).toBe(countTokens(words));
    const estimate = counter.count(words);
    expect(estimate).toBeGreaterThanOrEqual(countTokens(words) * 0.95);
    expect(estimate).toBeLessThanOrEqual(countTokens(words) * 1.1);
  });

  it('cannot be lowered by putting cheap text first and costly text after it', () => {
    const cheap = 'a'.repeat(EXACT_CHAR_BUDGET);
    const costly = randomBytes(150_000).toString('base64');
    const estimate = new TokenCounter().count(cheap + costly);
    expect(estimate).toBeGreaterThan(countTokens(costly) * 0.8);
  });
});
