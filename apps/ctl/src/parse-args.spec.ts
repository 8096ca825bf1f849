import { CtlUsageError, parseArgs } from './parse-args';

describe('parseArgs', () => {
  it('reads noun, verb and flags with values', () => {
    const parsed = parseArgs(['balance', 'add', '--account', 'acct_1', '--amount', '-2.5']);
    expect(parsed.noun).toBe('balance');
    expect(parsed.verb).toBe('add');
    expect(Object.fromEntries(parsed.flags)).toEqual({ account: 'acct_1', amount: '-2.5' });
  });

  it('reads a flag with no value as true, and says it was given bare', () => {
    const parsed = parseArgs(['model', 'add', '--id', 'm1', '--vision']);
    expect(Object.fromEntries(parsed.flags)).toEqual({ id: 'm1', vision: 'true' });
    expect([...parsed.bare]).toEqual(['vision']);
  });

  it.each([
    ['idempotency-key', ['balance', 'add', '--account', 'a', '--amount', '1', '--idempotency-key', '']],
    ['name', ['account', 'create', '--name', ' ']],
    ['account', ['audit', '--account', '']],
  ])('refuses an empty --%s: it would pass for a flag not given', (flag, argv) => {
    expect(() => parseArgs(argv)).toThrow(new CtlUsageError(`--${flag} is empty: give it a value, or leave it out`));
  });

  it.each([
    ['amount', ['balance', 'add', '--account', 'a', '--amount', '1', '--amount', '1000']],
    ['vision', ['model', 'add', '--id', 'm1', '--vision', '--vision']],
    ['name', ['account', 'create', '--name', 'x', '--balance', '1', '--name', 'y']],
  ])('refuses --%s given twice', (flag, argv) => {
    expect(() => parseArgs(argv)).toThrow(new CtlUsageError(`--${flag} is given more than once`));
  });

  it('reads the arguments between the verb and the first flag, and refuses one after a flag or an empty one', () => {
    expect(parseArgs(['statement', 'verify', 'a.csv', '--key', 'k.pem'])).toMatchObject({
      noun: 'statement',
      verb: 'verify',
      operands: ['a.csv'],
      flags: new Map([['key', 'k.pem']]),
    });
    expect(parseArgs(['audit']).operands).toEqual([]);
    expect(() => parseArgs(['key', 'list', '--account', 'a', 'acct_1'])).toThrow(new CtlUsageError('unexpected argument "acct_1"'));
    expect(() => parseArgs(['statement', 'verify', ''])).toThrow(new CtlUsageError('an argument is empty: give it a value'));
  });
});
