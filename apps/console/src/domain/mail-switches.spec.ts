import { canSwitchOff, MAIL_KINDS, switchedOffFrom } from './mail-switches';

describe('mail switches', () => {
  it('lists every kind of holder event once', () => {
    expect(MAIL_KINDS.map((m) => m.kind).sort()).toEqual(
      [
        'account-suspended',
        'account-unsuspended',
        'balance-exhausted',
        'key-created',
        'key-leak-suspected',
        'key-revoked',
        'low-balance',
        'top-up-credited',
      ].sort(),
    );
  });

  it('keeps security mail on: keys created, revoked, or suspected of a leak', () => {
    expect(MAIL_KINDS.filter((m) => !canSwitchOff(m.kind)).map((m) => m.kind)).toEqual([
      'key-created',
      'key-revoked',
      'key-leak-suspected',
    ]);
  });

  it('reads the boxes left on: every other switchable kind is off, and a security kind never is', () => {
    expect(switchedOffFrom(['low-balance', 'top-up-credited'])).toEqual(['balance-exhausted', 'account-suspended', 'account-unsuspended']);
    expect(switchedOffFrom('low-balance')).toEqual(['balance-exhausted', 'top-up-credited', 'account-suspended', 'account-unsuspended']);
    expect(switchedOffFrom(undefined)).toEqual([
      'low-balance',
      'balance-exhausted',
      'top-up-credited',
      'account-suspended',
      'account-unsuspended',
    ]);
    expect(
      switchedOffFrom(['low-balance', 'balance-exhausted', 'top-up-credited', 'account-suspended', 'account-unsuspended', 'no-such-kind']),
    ).toEqual([]);
  });
});
