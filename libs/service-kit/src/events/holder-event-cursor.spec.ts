import { decodeCursor, encodeCursor, START_CURSOR } from './holder-event-cursor';

describe('holder event cursors', () => {
  it('reads back what it wrote, a transaction id past 2^53 included', () => {
    for (const cursor of [
      { txid: '755', id: 1 },
      { txid: '18446744073709551615', id: 9007199254740991 },
    ]) {
      expect(decodeCursor(encodeCursor(cursor))).toEqual(cursor);
    }
  });

  it('reads the empty cursor as the start', () => {
    expect(decodeCursor('')).toEqual(START_CURSOR);
  });

  it('refuses what is not a cursor: other forms, signs, a transaction id past 64 bits, an id past 2^53 - 1', () => {
    for (const text of [
      '755',
      ':1',
      '755:',
      '-1:2',
      '1:-2',
      '1:2:3',
      ' 1:2',
      '1.5:2',
      '18446744073709551616:1',
      '1:9007199254740992',
      'a:b',
    ])
      expect(decodeCursor(text)).toBeUndefined();
  });
});
