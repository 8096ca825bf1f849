import { renderMetrics } from '@gw/service-kit';
import { MoneyAuditStore, MoneyViolation } from '../store/money-audit-store';
import { moneyAuditOf } from './money-audit';

const storeFinding = (violations: MoneyViolation[]): MoneyAuditStore => ({ audit: async () => ({ violations, accountsChecked: 7 }) });
const gaugeLines = async () => (await renderMetrics()).split('\n').filter((l) => l.startsWith('money_audit_violations{'));

describe('moneyAuditOf', () => {
  it('sets the violations gauge by kind, and back to 0 once the books add up', async () => {
    const twice = { kind: 'billed-twice', accountId: 'a', requestId: 'r', detail: '2 ledger rows' } as const;
    const found = await moneyAuditOf(
      storeFinding([twice, { ...twice, requestId: 'r2' }, { kind: 'balance-not-entries', accountId: 'b', requestId: '', detail: '' }]),
    ).run();
    expect(found.accountsChecked).toBe(7);
    expect(await gaugeLines()).toEqual([
      'money_audit_violations{kind="balance-not-entries"} 1',
      'money_audit_violations{kind="billed-twice"} 2',
      'money_audit_violations{kind="correction-not-charge"} 0',
      'money_audit_violations{kind="entry-without-link"} 0',
      'money_audit_violations{kind="link-without-entry"} 0',
      'money_audit_violations{kind="link-not-rows"} 0',
    ]);
    await moneyAuditOf(storeFinding([])).run();
    expect(await gaugeLines()).toEqual([
      'money_audit_violations{kind="balance-not-entries"} 0',
      'money_audit_violations{kind="billed-twice"} 0',
      'money_audit_violations{kind="correction-not-charge"} 0',
      'money_audit_violations{kind="entry-without-link"} 0',
      'money_audit_violations{kind="link-without-entry"} 0',
      'money_audit_violations{kind="link-not-rows"} 0',
    ]);
  });
});
