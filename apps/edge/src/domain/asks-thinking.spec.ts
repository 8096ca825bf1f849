import { asksThinking } from './asks-thinking';

describe('asksThinking (FREE_TIER_THINKING)', () => {
  it.each([
    [{ thinking: { type: 'enabled' } }, true],
    [{ thinking: { type: 'adaptive' } }, true],
    [{ thinking: { type: 'disabled' } }, false],
    [{ reasoning_effort: 'high' }, true],
    [{ reasoning_effort: 'none' }, false],
    [{ thinking: { type: 'disabled' }, reasoning_effort: 'low' }, true],
    [{}, false],
  ])('%j -> %s', (body, expected) => {
    expect(asksThinking(body)).toBe(expected);
  });
});
