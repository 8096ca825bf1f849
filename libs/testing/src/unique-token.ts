import { randomBytes } from 'node:crypto';

/**
 * A token unique to this process and call: `<pid><separator><16 hex digits>`.
 * Only digits, lowercase hex and the separator appear, so it is safe inside
 * SQL identifiers and Redis glob patterns.
 */
export function uniqueToken(separator: string): string {
  return `${process.pid}${separator}${randomBytes(8).toString('hex')}`;
}
