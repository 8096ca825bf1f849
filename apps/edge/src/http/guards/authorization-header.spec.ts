import { parseAuthorization } from './authorization-header';

const KEY = `sk-shfr-${'0a'.repeat(20)}`;

describe('parseAuthorization (docs/api.md#authentication)', () => {
  it.each([
    ['Bearer', `Bearer ${KEY}`],
    ['lower case', `bearer ${KEY}`],
    ['mixed case', `bEaReR ${KEY}`],
    ['several spaces', `Bearer    ${KEY}`],
  ])('accepts %s', (_, header) => {
    expect(parseAuthorization(header)).toEqual({ kind: 'key', key: KEY });
  });

  it('passes on a key that does not look like ours (the lookup refuses it as INVALID_API_KEY)', () => {
    expect(parseAuthorization('Bearer abc')).toEqual({ kind: 'key', key: 'abc' });
  });

  it.each([
    ['no header', undefined],
    ['empty header', ''],
    ['another scheme', `Basic ${KEY}`],
    ['no key', 'Bearer'],
    ['empty key', 'Bearer '],
    ['a space inside the key', `Bearer ${KEY.slice(0, 10)} ${KEY.slice(10)}`],
    ['no space after Bearer', `Bearer${KEY}`],
    ['a tab instead of spaces', `Bearer\t${KEY}`],
    ['a trailing space', `Bearer ${KEY} `],
  ])('gives missing for %s', (_, header) => {
    expect(parseAuthorization(header)).toEqual({ kind: 'missing' });
  });
});
