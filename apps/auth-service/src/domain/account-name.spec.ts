import { status } from '@grpc/grpc-js';
import { RpcError } from '@gw/service-kit';
import { accountName, MAX_ACCOUNT_NAME } from './account-name';

describe('accountName', () => {
  it.each([
    ['Acme Ltd', 'Acme Ltd'],
    ['  padded  ', 'padded'],
    ['', 'Account'],
    ['   ', 'Account'],
    ['x'.repeat(MAX_ACCOUNT_NAME), 'x'.repeat(MAX_ACCOUNT_NAME)],
    ['🙂'.repeat(MAX_ACCOUNT_NAME), '🙂'.repeat(MAX_ACCOUNT_NAME)],
    ['شركة ليبيا', 'شركة ليبيا'],
  ])('keeps %p as %p', (requested, kept) => {
    expect(accountName(requested)).toBe(kept);
  });

  it.each([
    ['x'.repeat(MAX_ACCOUNT_NAME + 1), 'at most 64 characters'],
    ['🙂'.repeat(MAX_ACCOUNT_NAME + 1), 'at most 64 characters'],
    ['two\nlines', 'control characters'],
    ['tab\there', 'control characters'],
    ['trailing newline\n', 'control characters'],
    ['nul\u0000', 'control characters'],
    ['escape\u001b[31m', 'control characters'],
    ['delete\u007f', 'control characters'],
    ['c1\u0085', 'control characters'],
  ])('refuses %j with INVALID_ARGUMENT', (requested, reason) => {
    const refusal = (() => {
      try {
        accountName(requested);
      } catch (err) {
        return err;
      }
    })();
    expect(refusal).toBeInstanceOf(RpcError);
    expect(refusal).toMatchObject({ code: status.INVALID_ARGUMENT, message: expect.stringContaining(reason) });
  });
});
