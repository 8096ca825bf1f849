import { CtlUsageError, parseArgs } from './parse-args';

describe('parseArgs', () => {
  it('reads noun, verb and flags with values', () => {
    const parsed = parseArgs(['balance', 'add', '--account', 'acct_1', '--amount', '-2.5']);
    expect(parsed.noun).toBe('balance');
    expect(parsed.verb).toBe('add');
    expect(Object.fromEntries(parsed.flags)).toEqual({ account: 'acct_1', amount: '-2.5' });
  });

  it('reads a flag with no value as true', () => {
    expect(Object.fromEntries(parseArgs(['model', 'add', '--id', 'm1', '--vision']).flags)).toEqual({ id: 'm1', vision: 'true' });
  });

  it('refuses a stray argument', () => {
    expect(() => parseArgs(['key', 'list', 'acct_1'])).toThrow(CtlUsageError);
  });
});
