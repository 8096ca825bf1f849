import { isPeakHour, parsePeakHours } from './peak-hours';

const at = (hour: number, minute = 0) => Date.UTC(2031, 4, 6, hour, minute);

describe('peak hours', () => {
  it('reads START-END and refuses anything else', () => {
    expect(parsePeakHours('X', '0-17')).toEqual({ startHour: 0, endHour: 17 });
    expect(parsePeakHours('X', ' 22-6 ')).toEqual({ startHour: 22, endHour: 6 });
    expect(parsePeakHours('X', '8-24')).toEqual({ startHour: 8, endHour: 24 });
    for (const bad of ['', '8', '8-', '24-2', '3-25', 'a-b', '1-2-3']) expect(() => parsePeakHours('X', bad)).toThrow(/^X must be/);
  });

  it('includes the start hour and excludes the end hour', () => {
    const hours = parsePeakHours('X', '0-17');
    expect(isPeakHour(hours, at(0))).toBe(true);
    expect(isPeakHour(hours, at(16, 59))).toBe(true);
    expect(isPeakHour(hours, at(17))).toBe(false);
    expect(isPeakHour(hours, at(23, 59))).toBe(false);
  });

  it('wraps past midnight', () => {
    const hours = parsePeakHours('X', '22-6');
    expect([21, 22, 23, 0, 5, 6].map((h) => isPeakHour(hours, at(h)))).toEqual([false, true, true, true, true, false]);
    expect(isPeakHour(parsePeakHours('X', '8-24'), at(23))).toBe(true);
    expect([0, 12, 23].every((h) => isPeakHour(parsePeakHours('X', '0-24'), at(h)))).toBe(true);
  });

  it('has no peak hours when start and end are equal', () => {
    const none = parsePeakHours('X', '0-0');
    expect([0, 12, 23].some((h) => isPeakHour(none, at(h)))).toBe(false);
  });
});
