import { status } from '@grpc/grpc-js';
import { createLogger } from '@gw/service-kit';
import { eventually } from '@gw/testing';
import { grantLine, paidStep, SETTINGS } from '../../test/store-contracts/admission-fixtures';
import { EVENING, TEST_DEFAULTS } from '../../test/store-contracts/free-tier-fixtures';
import { InMemoryStoreSet, openInMemoryStores } from '../store/in-memory-stores';
import { OutboxLineReturn } from '../store/outbox/bill-outbox';
import { LENT_LINES_PAGE, LineReturner } from './line-returner';

const IDLE = 600_000;

describe('LineReturner', () => {
  let nowMs = EVENING;
  let stores: InMemoryStoreSet;
  let applied: OutboxLineReturn[][];
  let down: boolean;
  let lines: LineReturner;

  beforeEach(async () => {
    nowMs = EVENING;
    stores = openInMemoryStores(SETTINGS, TEST_DEFAULTS, () => nowMs);
    applied = [];
    down = false;
    const billing = {
      applyBills: async (_bills: unknown[], returns: OutboxLineReturn[]) => {
        if (down) throw Object.assign(new Error('down'), { code: status.UNAVAILABLE });
        applied.push(returns);
        return [];
      },
    };
    lines = new LineReturner(
      stores.admission,
      billing,
      { idleMs: IDLE, intervalMs: 10, batchSize: 100 },
      createLogger('quota-service-test', 'error', () => undefined),
    );
    for (const account of ['busy', 'idle']) await grantLine(stores.admission, account, 10_000);
  });
  afterEach(() => lines.stop());

  it('gives back the lines of accounts idle for the idle time, through the outbox', async () => {
    nowMs += IDLE - 1;
    await stores.admission.admit(paidStep('busy', 1000));
    nowMs += 1;
    expect(await lines.returnIdleOnce()).toBe(1);
    expect((await stores.outbox.claim(10)).map((c) => c.record)).toEqual([
      { kind: 'return', accountId: 'idle', returnedTotalMicro: 10_000 },
    ]);
    expect(await stores.admission.credit('busy')).toMatchObject({ returned: 0, held: 1000 });
    expect(applied).toEqual([]);
  });

  it('adopts the lines billing-service lent that the store does not know, page after page, and gives them back once idle', async () => {
    const lent = Array.from({ length: LENT_LINES_PAGE + 1 }, (_, i) => ({
      accountId: `lost-${String(i).padStart(5, '0')}`,
      granted: 5000,
      charged: 1000,
      returned: 0,
    }));
    const asked: string[] = [];
    const billing = {
      applyBills: async () => [],
      lentLines: async (after: string, limit: number) => {
        asked.push(after);
        return [{ accountId: 'busy', granted: 10_000, charged: 0, returned: 0 }, ...lent]
          .filter((l) => l.accountId > after)
          .slice(0, limit);
      },
    };
    const auditing = new LineReturner(
      stores.admission,
      billing,
      { idleMs: IDLE, intervalMs: 10, batchSize: 10_000 },
      createLogger('quota-service-test', 'error', () => undefined),
    );
    expect(await auditing.adoptLostOnce()).toBe(LENT_LINES_PAGE + 1);
    expect(asked).toEqual(['', lent[LENT_LINES_PAGE - 2].accountId]);
    expect(await auditing.adoptLostOnce()).toBe(0);
    nowMs += IDLE;
    // A request of a lost account still running holds its part again at its renewal, and keeps the account active.
    const running = paidStep('lost-00000', 3000);
    await stores.admission.resurrect(running.lease, 30_000);
    expect(await auditing.returnIdleOnce()).toBe(LENT_LINES_PAGE + 2);
    expect(await stores.admission.credit('lost-00000')).toEqual({ granted: 5000, charged: 1000, returned: 0, held: 3000 });
    expect(await stores.admission.credit('lost-00001')).toEqual({ granted: 5000, charged: 1000, returned: 4000, held: 0 });
    await stores.admission.finish({
      accountId: 'lost-00000',
      requestId: running.requestId,
      admitted: true,
      payment: 'paid',
      tokens: 10,
      usageEstimated: false,
      lapsed: false,
      chargeMicro: 500,
      bill: undefined,
    });
    nowMs += IDLE;
    await auditing.returnIdleOnce();
    expect(await stores.admission.credit('lost-00000')).toEqual({ granted: 5000, charged: 1500, returned: 3500, held: 0 });
  });

  it('looks at no lines of an older billing-service', async () => {
    const billing = {
      applyBills: async () => [],
      lentLines: async () => Promise.reject(Object.assign(new Error('no'), { code: status.UNIMPLEMENTED })),
    };
    const older = new LineReturner(
      stores.admission,
      billing,
      { idleMs: IDLE, intervalMs: 10, batchSize: 100 },
      createLogger('quota-service-test', 'error', () => undefined),
    );
    expect(await older.adoptLostOnce()).toBe(0);
  });

  it('runs on its timer', async () => {
    nowMs += IDLE;
    lines.start();
    const credit = await eventually(
      () => stores.admission.credit('idle'),
      (c) => c.returned > 0,
      { timeoutMs: 5000, intervalMs: 5 },
    );
    expect(credit).toMatchObject({ returned: 10_000 });
  });

  it('gives a line back at once for the operator, applied by billing-service before it answers, what is held staying', async () => {
    await stores.admission.admit(paidStep('busy', 4000));
    expect(await lines.returnNow('busy')).toEqual({ returnedMicro: 6000, heldMicro: 4000 });
    expect(applied).toEqual([[{ kind: 'return', accountId: 'busy', returnedTotalMicro: 6000 }]]);
  });

  it('answers UNAVAILABLE when billing-service cannot apply it now; asked again it delivers the same total', async () => {
    down = true;
    await expect(lines.returnNow('idle')).rejects.toMatchObject({ kind: 'unavailable' });
    down = false;
    expect(await lines.returnNow('idle')).toEqual({ returnedMicro: 0, heldMicro: 0 });
    expect(applied).toEqual([[{ kind: 'return', accountId: 'idle', returnedTotalMicro: 10_000 }]]);
  });
});
