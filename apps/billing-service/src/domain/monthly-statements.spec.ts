import { checkStatement, signingKeyFromSeed, StatementStatus, StatementWriter } from '@gw/statement';
import { SendPart, StatementStore } from '../store/statement-store';
import { MonthlyStatements } from './monthly-statements';
import { WorkSlots } from './work-slots';

const KEY = signingKeyFromSeed('0b'.repeat(32));
const MINUTE = 60_000;

const lines = (accountId: string, month: string, status: StatementStatus) => {
  const writer = new StatementWriter({ accountId, month, status, openingMicro: 7 });
  return [...writer.opening(), writer.closing()].map((l) => `${l}\n`).join('');
};

/** A store that keeps what it is asked to keep, and says what it was asked. */
class FakeStore implements StatementStore {
  readonly kept = new Map<string, string>();
  readonly asked: string[] = [];
  constructor(private readonly first?: string) {}
  async sendKept(accountId: string, month: string, send: SendPart) {
    this.asked.push(`sendKept ${month}`);
    const text = this.kept.get(`${accountId} ${month}`);
    if (text !== undefined) await send(text);
    return text !== undefined;
  }
  async keep(accountId: string, month: string) {
    this.asked.push(`keep ${month}`);
    this.kept.set(`${accountId} ${month}`, lines(accountId, month, 'final'));
  }
  async sendMade(accountId: string, month: string, status: StatementStatus, send: SendPart) {
    this.asked.push(`sendMade ${month} ${status}`);
    await send(lines(accountId, month, status));
  }
  async firstMonth() {
    return this.first;
  }
}

const at = (iso: string) => () => Date.parse(iso);

describe('MonthlyStatements', () => {
  it('makes a month final once the late-bill window after it has passed, and refuses one not begun or not YYYY-MM', () => {
    const statements = (now: string) => new MonthlyStatements(new FakeStore(), KEY, MINUTE, undefined, at(now));
    expect(statements('2026-12-01T00:00:59.999Z').statusOf('2026-11')).toBe('provisional');
    expect(statements('2026-12-01T00:01:00.000Z').statusOf('2026-11')).toBe('final');
    expect(statements('2026-12-01T00:01:00.000Z').statusOf('2026-12')).toBe('provisional');
    expect(() => statements('2026-11-30T23:59:59.999Z').statusOf('2026-12')).toThrow('2026-12 has not begun');
    expect(() => statements('2026-12-01T00:00:00Z').statusOf('2026-1')).toThrow('month must be YYYY-MM');
  });

  it('sends a final month as kept, keeping it the first time, and an open one as made now; each ends with its signature', async () => {
    const store = new FakeStore();
    const statements = new MonthlyStatements(store, KEY, MINUTE, undefined, at('2026-12-05T00:00:00Z'));
    const read = async (month: string) => {
      let text = '';
      await statements.send('acct_1', month, async (part) => {
        text += part;
      });
      return text;
    };
    const first = await read('2026-11');
    expect(await read('2026-11')).toBe(first);
    const open = await read('2026-12');
    expect(store.asked).toEqual([
      'sendKept 2026-11',
      'keep 2026-11',
      'sendKept 2026-11',
      'sendKept 2026-11',
      'sendMade 2026-12 provisional',
    ]);
    expect(checkStatement(first, KEY)).toMatchObject({ ok: true, summary: { status: 'final', keyId: statements.keyId } });
    expect(checkStatement(open, KEY)).toMatchObject({ ok: true, summary: { status: 'provisional', month: '2026-12' } });
    expect(statements.publicKeyPem).toMatch(/^-----BEGIN PUBLIC KEY-----\n/);
  });

  it('lists the months from the first in which the balance moved to this one, newest first', async () => {
    const now = at('2027-01-10T00:00:00Z');
    expect(await new MonthlyStatements(new FakeStore('2026-11'), KEY, 10 * 24 * 60 * MINUTE, undefined, now).months('acct_1')).toEqual([
      { month: '2027-01', status: 'provisional' },
      { month: '2026-12', status: 'provisional' },
      { month: '2026-11', status: 'final' },
    ]);
    expect(await new MonthlyStatements(new FakeStore(), KEY, MINUTE, undefined, now).months('acct_1')).toEqual([
      { month: '2027-01', status: 'provisional' },
    ]);
    // A bill admitted a little ahead of this clock, into next month: this month still comes first.
    expect(await new MonthlyStatements(new FakeStore('2027-02'), KEY, MINUTE, undefined, now).months('acct_1')).toEqual([
      { month: '2027-01', status: 'provisional' },
    ]);
  });
});

describe('MonthlyStatements after months archived before statements were kept', () => {
  it('refuses the months before statements begin, and lists none of them', async () => {
    const statements = new MonthlyStatements(new FakeStore('2026-05'), KEY, MINUTE, '2026-09', at('2026-11-10T00:00:00Z'));
    expect(() => statements.statusOf('2026-08')).toThrow(expect.objectContaining({ kind: 'failed-precondition' }));
    expect(statements.statusOf('2026-09')).toBe('final');
    expect((await statements.months('acct_1')).map((m) => m.month)).toEqual(['2026-11', '2026-10', '2026-09']);
  });
});

describe('WorkSlots', () => {
  it('runs at most its size at once, the rest in the order they came', async () => {
    const slots = new WorkSlots(2);
    const started: number[] = [];
    const finish: (() => void)[] = [];
    const work = (n: number) =>
      slots.run(
        () =>
          new Promise<void>((resolve) => {
            started.push(n);
            finish[n] = resolve;
          }),
      );
    const all = [0, 1, 2, 3].map(work);
    await Promise.resolve();
    expect(started).toEqual([0, 1]);
    finish[1]();
    await all[1];
    expect(started).toEqual([0, 1, 2]);
    finish[0]();
    finish[2]();
    await Promise.all([all[0], all[2]]);
    expect(started).toEqual([0, 1, 2, 3]);
    finish[3]();
    await Promise.all(all);
  });
});
