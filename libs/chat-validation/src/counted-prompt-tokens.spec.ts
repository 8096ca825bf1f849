import { countedPromptTokens } from './counted-prompt-tokens';

describe('countedPromptTokens (docs/api.md#limits: estimate plus 10%, plus 1,024 per image)', () => {
  it.each([
    [0, 0, 0],
    [10, 0, 11],
    [11, 0, 13],
    [1000, 2, 1100 + 2048],
    [80_000, 0, 88_000],
  ])('%i tokens and %i images -> %i', (tokens, images, counted) => {
    expect(countedPromptTokens(tokens, images)).toBe(counted);
  });
});
