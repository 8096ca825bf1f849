/**
 * The pool's name for one request's reservation. Request ids are only unique per account (the
 * caller may choose them), so the account is part of it, length-prefixed so that no two
 * (account, request) pairs can give the same text.
 */
export function poolHoldId(accountId: string, requestId: string): string {
  return `${accountId.length}:${accountId}${requestId}`;
}
