import { accountName, characterCount, keyName, MAX_NAME_CHARACTERS } from './display-name';
import { DomainError } from '@gw/errors';

describe('accountName', () => {
  it.each([
    ['Acme Ltd', 'Acme Ltd'],
    ['  padded  ', 'padded'],
    ['', 'Account'],
    ['   ', 'Account'],
    ['x'.repeat(MAX_NAME_CHARACTERS), 'x'.repeat(MAX_NAME_CHARACTERS)],
    ['🙂'.repeat(MAX_NAME_CHARACTERS), '🙂'.repeat(MAX_NAME_CHARACTERS)],
    ['شركة ليبيا', 'شركة ليبيا'],
    ['👩‍👩‍👧'.repeat(MAX_NAME_CHARACTERS), '👩‍👩‍👧'.repeat(MAX_NAME_CHARACTERS)],
    ['🇱🇾'.repeat(MAX_NAME_CHARACTERS), '🇱🇾'.repeat(MAX_NAME_CHARACTERS)],
    ['e\u0301'.repeat(MAX_NAME_CHARACTERS), 'e\u0301'.repeat(MAX_NAME_CHARACTERS)],
  ])('keeps %p as %p', (requested, kept) => {
    expect(accountName(requested)).toBe(kept);
  });

  it.each([
    ['x'.repeat(MAX_NAME_CHARACTERS + 1), 'at most 64 characters'],
    ['🙂'.repeat(MAX_NAME_CHARACTERS + 1), 'at most 64 characters'],
    ['🇱🇾'.repeat(MAX_NAME_CHARACTERS + 1), 'at most 64 characters'],
    ['two\nlines', 'control characters'],
    ['tab\there', 'control characters'],
    ['trailing newline\n', 'control characters'],
    ['nul\u0000', 'control characters'],
    ['escape\u001b[31m', 'control characters'],
    ['delete\u007f', 'control characters'],
    ['c1\u0085', 'control characters'],
  ])('refuses %j with INVALID_ARGUMENT', (requested, reason) => {
    const refusal = (() => {
      try {
        accountName(requested);
      } catch (err) {
        return err;
      }
    })();
    expect(refusal).toBeInstanceOf(DomainError);
    expect(refusal).toMatchObject({ kind: 'invalid-argument', message: expect.stringContaining(reason) });
  });
});

describe('keyName', () => {
  it('keeps 33 emoji (66 UTF-16 units) and gives an empty name back empty', () => {
    expect(keyName(' ' + '🔑'.repeat(33) + ' ')).toBe('🔑'.repeat(33));
    expect(keyName('  ')).toBe('');
  });

  it('refuses a NUL and a 65th character as a key name', () => {
    expect(() => keyName('a\u0000b')).toThrow(
      expect.objectContaining({ kind: 'invalid-argument', message: 'a key name cannot hold control characters' }),
    );
    expect(() => keyName('k'.repeat(65))).toThrow(
      expect.objectContaining({ kind: 'invalid-argument', message: 'a key name is at most 64 characters' }),
    );
  });
});

describe('characterCount', () => {
  it('counts what a person sees', () => {
    expect([characterCount('abc'), characterCount('🇱🇾'), characterCount('👩‍👩‍👧'), characterCount('e\u0301'), characterCount('')]).toEqual([
      3, 1, 1, 1, 0,
    ]);
  });
});
