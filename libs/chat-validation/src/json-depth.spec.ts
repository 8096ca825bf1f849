import { nestsDeeperThan } from './json-depth';

describe('nestsDeeperThan', () => {
  const nested = (n: number) => '['.repeat(n) + ']'.repeat(n);

  it('counts arrays and objects alike', () => {
    expect(nestsDeeperThan(nested(3), 3)).toBe(false);
    expect(nestsDeeperThan(nested(4), 3)).toBe(true);
    expect(nestsDeeperThan('{"a":{"b":[{"c":1}]}}', 4)).toBe(false);
    expect(nestsDeeperThan('{"a":{"b":[{"c":{}}]}}', 4)).toBe(true);
  });

  it('ignores brackets inside strings, escaped quotes included', () => {
    expect(nestsDeeperThan(`{"a":"${'['.repeat(50)}"}`, 1)).toBe(false);
    expect(nestsDeeperThan(`{"a":"\\"[[[[","b":1}`, 1)).toBe(false);
    expect(nestsDeeperThan(`{"a":"\\\\","b":[[1]]}`, 2)).toBe(true);
  });

  it('measures depth, not the number of brackets', () => {
    expect(nestsDeeperThan(`[${Array(1000).fill('[1]').join(',')}]`, 2)).toBe(false);
  });
});
