import { status } from '@grpc/grpc-js';
import { RpcError } from '@gw/service-kit';

/** The longest account name, in characters (Unicode code points, so an emoji counts as one). */
export const MAX_ACCOUNT_NAME = 64;

const DEFAULT_ACCOUNT_NAME = 'Account';
const CONTROL_CHARACTER = /\p{Cc}/u;

/**
 * The name an account is kept under, from what its creator typed (the operator's CLI or the
 * console): trimmed, the default when empty. Refused with INVALID_ARGUMENT when longer than
 * MAX_ACCOUNT_NAME characters or holding a control character (newlines, tabs, escapes, NUL...),
 * which would break the lines and tables the name is shown in.
 */
export function accountName(requested: string): string {
  if (CONTROL_CHARACTER.test(requested)) throw new RpcError(status.INVALID_ARGUMENT, 'an account name cannot hold control characters');
  const name = requested.trim();
  if ([...name].length > MAX_ACCOUNT_NAME) throw new RpcError(status.INVALID_ARGUMENT, `an account name is at most ${MAX_ACCOUNT_NAME} characters`);
  return name || DEFAULT_ACCOUNT_NAME;
}
