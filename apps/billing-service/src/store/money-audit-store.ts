/** Kinds of what does not add up in billing's books. */
export type MoneyViolationKind =
  'balance-not-entries' | 'billed-twice' | 'correction-not-charge' | 'entry-without-link' | 'link-without-entry' | 'link-not-rows';

/** One thing that does not add up. */
export interface MoneyViolation {
  kind: MoneyViolationKind;
  accountId: string;
  requestId: string;
  detail: string;
}

/** Billing's books checked against themselves. */
export interface MoneyAuditStore {
  /** At most `limit` violations, by kind then account, and how many accounts were checked. */
  audit(limit: number): Promise<{ violations: MoneyViolation[]; accountsChecked: number }>;
}
