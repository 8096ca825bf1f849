import { parseArgs } from '../parse-args';
import { checkFlags, declaredFlags } from './command-flags';

const check =
  (usage: string, ...flags: string[]) =>
  () =>
    checkFlags(usage, parseArgs(['x', 'y', ...flags]));
const BALANCE_ADD = 'balance add --account ID --amount LYD [--reason TEXT] [--idempotency-key K]';

describe('declaredFlags', () => {
  it('reads required flags, optional ones and switches from a usage line', () => {
    expect(Object.fromEntries(declaredFlags('model add --id M [--vision] [--paused true/false]'))).toEqual({
      id: { required: true, value: 'M' },
      vision: { required: false, value: undefined },
      paused: { required: false, value: 'true/false' },
    });
    expect(declaredFlags('audit').size).toBe(0);
    expect(declaredFlags('statement verify FILE [--key PEM_FILE]')).toEqual(new Map([['key', { required: false, value: 'PEM_FILE' }]]));
  });

  it.each([
    ['a required switch', 'model add --vision'],
    ['an unclosed bracket', 'model add [--id M'],
    ['a flag declared twice', 'key list --account ID [--account ID]'],
    ['words after the flags', 'key list --account ID please'],
    ['an argument after the flags', 'statement verify --key PEM FILE'],
  ])('throws on a usage line with %s (a mistake in the table)', (_what, usage) => {
    expect(() => declaredFlags(usage)).toThrow(Error);
  });
});

describe('checkFlags', () => {
  it('passes the flags a usage line declares', () => {
    expect(check(BALANCE_ADD, '--account', 'a', '--amount', '-1', '--idempotency-key', 'k')).not.toThrow();
    expect(check('model add --id M [--vision]', '--id', 'm', '--vision')).not.toThrow();
    expect(check('model add --id M [--vision]', '--id', 'm', '--vision', 'false')).not.toThrow();
  });

  it("refuses a flag the command does not declare, listing the command's flags", () => {
    expect(check(BALANCE_ADD, '--account', 'a', '--amount', '1', '--idem', 'k')).toThrow(
      expect.objectContaining({ code: 'USAGE', message: `unknown flag --idem; usage: ${BALANCE_ADD}` }),
    );
    expect(check('audit', '--extra', '1')).toThrow(
      expect.objectContaining({ code: 'USAGE', message: 'unknown flag --extra; audit takes no flags' }),
    );
  });

  it('refuses a flag that takes a value given without one, and a switch given another value than true/false', () => {
    expect(check(BALANCE_ADD, '--account', 'a', '--amount', '1', '--reason')).toThrow('--reason takes a value');
    expect(check('model add --id M [--vision]', '--id', 'm', '--vision', 'yes')).toThrow('--vision takes no value, or true/false');
  });

  it('refuses a command without a required flag', () => {
    expect(check(BALANCE_ADD, '--account', 'a')).toThrow(`--amount is required; usage: ${BALANCE_ADD}`);
  });

  it('takes the arguments a usage line declares, by their names in lower case, and no other', () => {
    const VERIFY = 'statement verify FILE [--key PEM_FILE]';
    const given = (...argv: string[]) => checkFlags(VERIFY, parseArgs(['statement', 'verify', ...argv]));
    expect(given('s.csv', '--key', 'k.pem')).toEqual(
      new Map([
        ['key', 'k.pem'],
        ['file', 's.csv'],
      ]),
    );
    expect(() => given()).toThrow(`FILE is required; usage: ${VERIFY}`);
    expect(() => given('a.csv', 'b.csv')).toThrow(`unexpected argument "b.csv"; usage: ${VERIFY}`);
    expect(() => checkFlags('key list --account ID', parseArgs(['key', 'list', 'acct_1', '--account', 'a']))).toThrow(
      'unexpected argument "acct_1"; usage: key list --account ID',
    );
  });
});
