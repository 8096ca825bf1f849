import { csvLine, splitCsvLine } from './csv-line';
import { monthBounds } from './statement-format';

describe('csvLine and splitCsvLine', () => {
  it.each([
    [['a', 'b', 'c'], 'a,b,c'],
    [['', '', ''], ',,'],
    [['x, y', 'say "hi"', ''], '"x, y","say ""hi""",'],
    [[''], ''],
  ])('%j <-> %s', (fields, line) => {
    expect(csvLine(fields)).toBe(line);
    expect(splitCsvLine(line)).toEqual(fields);
  });

  it.each(['a"b,c', '"a"b,c', '"unclosed,c'])('refuses %s, which csvLine never writes', (line) => {
    expect(splitCsvLine(line)).toBeUndefined();
  });
});

describe('monthBounds', () => {
  it.each([
    ['2026-01', '2026-01-01T00:00:00.000000Z', '2026-02-01T00:00:00.000000Z'],
    ['2025-12', '2025-12-01T00:00:00.000000Z', '2026-01-01T00:00:00.000000Z'],
    ['0999-12', '0999-12-01T00:00:00.000000Z', '1000-01-01T00:00:00.000000Z'],
  ])('%s runs from %s to %s', (month, start, end) => {
    expect(monthBounds(month)).toEqual({ start, end });
  });

  it('throws on what is not a month', () => {
    expect(() => monthBounds('2026-13')).toThrow('not a month');
  });
});
