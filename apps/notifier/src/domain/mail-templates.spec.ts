import { HolderEventKindName, HolderEventValue } from '@gw/service-kit';
import { mailText } from './mail-templates';

const URL = 'https://console.example';
const notice = (kind: HolderEventKindName, details: Record<string, HolderEventValue>) =>
  mailText({ source: 'billing-service', id: 7, at: new Date('2026-11-28T14:03:09.123Z'), accountId: 'acct_42', kind, details }, URL);

describe('mail templates', () => {
  it('tells of a top-up: the amount, the balance after it, when, and where to look', () => {
    const mail = notice('top-up-credited', { amountMicro: 5_000_000, balanceMicro: 12_500_000 });
    expect(mail.subject).toBe('Top-up of 5.00 LYD credited');
    expect(mail.text).toContain('A top-up of 5.00 LYD was credited to account acct_42 at 2026-11-28 14:03 UTC.');
    expect(mail.text).toContain('The balance is now 12.50 LYD.');
    expect(mail.text).toContain(`${URL}/usage`);
  });

  it('tells of a low balance with the balance and the alert, once, and links to the alert', () => {
    const mail = notice('low-balance', { balanceMicro: 4_999_999, thresholdMicro: 5_000_000 });
    expect(mail.subject).toBe('Low balance: 4.999999 LYD left');
    expect(mail.text).toContain('fell to 4.999999 LYD at 2026-11-28 14:03 UTC, at or below the alert you set at 5.00 LYD');
    expect(mail.text).toContain(`${URL}/usage#low-balance-alert`);
  });

  it('tells that the balance can no longer pay, and what happens to requests', () => {
    const mail = notice('balance-exhausted', { balanceMicro: 120 });
    expect(mail.subject).toBe('Your balance can no longer pay for requests');
    expect(mail.text).toContain('(0.00012 LYD)');
    expect(mail.text).toContain('refused (402)');
  });

  it('names a key by its name and prefix, never more of it, and says where to revoke it', () => {
    const created = notice('key-created', { keyId: 'key_1', prefix: 'sk-shfr-b089', name: 'laptop' });
    expect(created.subject).toBe('New API key "laptop" (sk-shfr-b089…)');
    expect(created.text).toContain(`If you did not create it, revoke it now: ${URL}/keys`);
    expect(notice('key-revoked', { keyId: 'key_1', prefix: 'sk-shfr-b089', name: '' }).subject).toBe('API key (sk-shfr-b089…) revoked');
  });

  it('tells of a suspension with its end and reason, and of its end', () => {
    const until = notice('account-suspended', { until: '2026-12-01T00:00:00.000Z', reason: 'unpaid invoice' });
    expect(until.text).toContain('was suspended at 2026-11-28 14:03 UTC, until 2026-12-01 00:00 UTC.');
    expect(until.text).toContain('Reason: unpaid invoice');
    expect(notice('account-suspended', { until: null, reason: '' }).text).toContain('until further notice.\nEvery API request');
    expect(notice('account-unsuspended', {}).subject).toBe('Account suspension ended');
    expect(notice('account-unsuspended', {}).text).toContain('ended at 2026-11-28 14:03 UTC: requests with its keys are served again.');
  });

  it('tells of a suspension that ended at its end time, with that end rather than when it was noticed', () => {
    const mail = notice('account-unsuspended', { endedAt: '2026-11-28T14:02:30.000Z', by: 'expiry' });
    expect(mail.subject).toBe('Account suspension ended');
    expect(mail.text).toContain(
      'The suspension of account acct_42 ended at 2026-11-28 14:02 UTC, the end it was set with: requests with its keys are served again.',
    );
    expect(mail.text).toContain(`Your account: ${URL}/keys`);
  });

  it('tells of a suspected leak with the key, the reason and every figure, amounts in LYD', () => {
    const mail = notice('key-leak-suspected', {
      keyId: 'key_9',
      prefix: 'sk-shfr-0a1b',
      reason: 'spend jumped',
      lastHourMicro: 3_000_000,
      usualHourMicro: 100_000,
      requests: 1800,
    });
    expect(mail.subject).toBe('Security: key (sk-shfr-0a1b…) may have leaked');
    expect(mail.text).toContain('looked like a leak: spend jumped.');
    expect(mail.text).toContain('  last hour: 3.00 LYD\n  usual hour: 0.10 LYD\n  requests: 1800\n');
    expect(mail.text).toContain(`revoke the key now: ${URL}/keys`);
  });

  it('names a key by its id when its name and prefix are not known (a key revoked before the mail was written)', () => {
    expect(notice('key-leak-suspected', { keyId: 'key_9', reason: 'spend jumped' }).subject).toBe('Security: key key_9 may have leaked');
  });

  it('says how to switch a kind off, except for security mail, which stays on', () => {
    expect(notice('top-up-credited', { amountMicro: 1, balanceMicro: 1 }).text).toContain(`Choose what we mail you about: ${URL}/mail`);
    for (const kind of ['key-created', 'key-revoked', 'key-leak-suspected'] as const) {
      const mail = notice(kind, { keyId: 'k', prefix: 'p', name: 'n', reason: 'r' });
      expect(mail.text).toContain('This is security mail');
      expect(mail.text).not.toContain('/mail');
    }
  });
});
