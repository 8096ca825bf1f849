import { DayCharge, spendingOf } from './spending';

/** `amounts` micro-LYD on the days ending 2026-11-27 (today), oldest first, as DailyTotals gives them. */
const daysEndingToday = (...amounts: number[]): DayCharge[] =>
  amounts.map((amountMicro, i) => ({
    day: new Date(Date.UTC(2026, 10, 27 - (amounts.length - 1 - i))).toISOString().slice(0, 10),
    amountMicro,
  }));

describe('spendingOf', () => {
  it('takes today from the last row, and the average from the 7 full days before it only', () => {
    // 9 days: 2026-11-19 (outside the 7), 11-20 .. 11-26 (the 7), 11-27 (today).
    const spending = spendingOf(daysEndingToday(5_000_000, 700, 0, 1400, 0, 0, 2100, 2800, 300), 4_999_000);
    expect(spending).toEqual({ today: '2026-11-27', todayMicro: 300, lastDaysMicro: 7000, averageMicro: 1000, daysLeft: 4999 });
  });

  it('rounds the average to a whole micro-LYD and the days left down', () => {
    // 10 micro-LYD in 7 days: 1.43 a day shown as 1; 100 / 1.43 = 70 days.
    expect(spendingOf(daysEndingToday(0, 0, 0, 0, 0, 0, 10, 0), 100)).toMatchObject({ averageMicro: 1, daysLeft: 70 });
    expect(spendingOf(daysEndingToday(4, 0, 0, 0, 0, 0, 0, 0), 1)).toMatchObject({ averageMicro: 1, daysLeft: 1 });
    expect(spendingOf(daysEndingToday(7_000_000, 0, 0, 0, 0, 0, 0, 0), 999_999)).toMatchObject({ averageMicro: 1_000_000, daysLeft: 0 });
  });

  it('has no days left to tell when nothing was spent in the 7 days, however much today', () => {
    expect(spendingOf(daysEndingToday(0, 0, 0, 0, 0, 0, 0, 9_000_000), 5_000_000)).toEqual({
      today: '2026-11-27',
      todayMicro: 9_000_000,
      lastDaysMicro: 0,
      averageMicro: 0,
      daysLeft: undefined,
    });
  });

  it('says 0 days for an empty balance, and counts days missing from the rows (a new account) as days without spending', () => {
    expect(spendingOf(daysEndingToday(700, 50), 0)).toMatchObject({ todayMicro: 50, averageMicro: 100, daysLeft: 0 });
    expect(spendingOf([{ day: '2026-11-27', amountMicro: 5 }], 10)).toMatchObject({ todayMicro: 5, averageMicro: 0, daysLeft: undefined });
  });

  it('counts across a month and a year end by the calendar', () => {
    const days = [
      { day: '2026-12-25', amountMicro: 1 },
      { day: '2026-12-26', amountMicro: 70 },
      { day: '2027-01-01', amountMicro: 700 },
      { day: '2027-01-02', amountMicro: 3 },
    ];
    expect(spendingOf(days, 0)).toMatchObject({ today: '2027-01-02', todayMicro: 3, lastDaysMicro: 770, averageMicro: 110 });
  });

  it('keeps the days left exact for the largest balance', () => {
    expect(spendingOf(daysEndingToday(7, 0, 0, 0, 0, 0, 0, 0), Number.MAX_SAFE_INTEGER).daysLeft).toBe(Number.MAX_SAFE_INTEGER);
  });
});
