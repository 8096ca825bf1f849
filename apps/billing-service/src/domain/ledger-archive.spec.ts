import { status } from '@grpc/grpc-js';
import { grpcCodeOf } from '@gw/service-kit';
import { LedgerMonthsStore } from '../store/ledger-months-store';
import { LedgerArchive, ledgerCsvLine } from './ledger-archive';

const unusedStore = {} as LedgerMonthsStore;
const DAY_MS = 24 * 3600_000;
const archiveAt = (iso: string, lateWindowMs = DAY_MS) => new LedgerArchive(unusedStore, lateWindowMs, () => Date.parse(iso));
const codeOf = (fn: () => unknown) => {
  try {
    fn();
    return undefined;
  } catch (err) {
    return grpcCodeOf(err);
  }
};

describe('LedgerArchive', () => {
  it('archives a month a day after it ends, not before', () => {
    expect(codeOf(() => archiveAt('2026-12-01T23:59:59Z').firstKept('2026-12'))).toBe(status.FAILED_PRECONDITION);
    expect(archiveAt('2026-12-02T00:00:00Z').firstKept('2026-12')).toEqual(new Date('2026-12-01T00:00:00Z'));
    expect(archiveAt('2026-12-01T12:00:00Z').firstKept('2026-11')).toEqual(new Date('2026-11-01T00:00:00Z'));
    expect(archiveAt('2027-01-05T00:00:00Z').firstKept('2026-01')).toEqual(new Date('2026-01-01T00:00:00Z'));
  });

  it('archives a month only when the late-bill window after its end has passed: bills of it are still filed until then', () => {
    const window = 25 * 3600_000;
    expect(codeOf(() => archiveAt('2026-12-02T00:59:59Z', window).firstKept('2026-12'))).toBe(status.FAILED_PRECONDITION);
    expect(archiveAt('2026-12-02T01:00:00Z', window).firstKept('2026-12')).toEqual(new Date('2026-12-01T00:00:00Z'));
    expect(codeOf(() => archiveAt('2026-12-08T00:00:00Z', 7 * DAY_MS + 1).firstKept('2026-12'))).toBe(status.FAILED_PRECONDITION);
  });

  it('refuses what is not a month', () => {
    for (const before of ['2026-13', '2026-1', '26-01', '2026-01-01', '']) {
      expect(codeOf(() => archiveAt('2027-01-05T00:00:00Z').firstKept(before))).toBe(status.INVALID_ARGUMENT);
    }
  });

  it('quotes a field only where CSV needs it', () => {
    const row = {
      request_id: 'r1',
      request_at: '2026-11-01T00:00:00.000001Z',
      created_at: '2026-11-01T00:00:00.500000Z',
      account_id: 'acct,1',
      model: 'say "hi"',
      paid: 'true',
      prompt_tokens: '1',
      completion_tokens: '2',
      input_micro_per_million: '3',
      output_micro_per_million: '4',
      held_micro: '5',
      amount_micro: '6',
      shortfall_micro: '0',
      usage_estimated: 'false',
      end_reason: 'caller-left',
    };
    expect(ledgerCsvLine(row)).toBe(
      'r1,2026-11-01T00:00:00.000001Z,2026-11-01T00:00:00.500000Z,"acct,1","say ""hi""",true,1,2,3,4,5,6,0,false,caller-left',
    );
  });
});
