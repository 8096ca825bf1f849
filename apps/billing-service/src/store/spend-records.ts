import { KeyWake, RaisedAlert, SpendAlert, SpendBucket, UsualSpend } from '@gw/money';
import { Queryable } from '@gw/service-kit';

/** One charge of an applied batch as the spend watch counts it. */
export interface KeyedCharge {
  accountId: string;
  /** The key its request was made with; '' for a bill that named none. */
  keyId: string;
  /** When its request was admitted (else billing-service's clock when it was applied), Unix ms. */
  atMs: number;
  /** What it took from the balance now, micro-LYD (negative when a correction gave some back). */
  spendMicro: number;
  /** 1 for a request charged now, 0 for the correction of one charged before. */
  requests: number;
}

/** What the spend watch reads of one account after a batch (SpendFacts' parts, and its usual hour as last read). */
export interface AccountSpendRead {
  recent: SpendBucket[];
  wakes: KeyWake[];
  raised: RaisedAlert[];
  usual: UsualSpend | undefined;
}

/** How an alert was closed: let be by the holder or the operator, or its key revoked. */
export type SpendAlertClosing = 'dismissed' | 'key-revoked';

/** A spend alert as billing-service keeps it (billing.spend_alerts). */
export interface SpendAlertRecord extends SpendAlert {
  alertId: number;
  accountId: string;
  raisedAt: Date;
  /** Set once closed. */
  closed?: { at: Date; closing: SpendAlertClosing; by: string };
}

/** What a batch of bills does with its paid charges in its transaction (SpendWatch). */
export interface ChargesWatch {
  /** In the batch's transaction: the charges recorded; the alerts raised. */
  charged(tx: Queryable, charges: readonly KeyedCharge[]): Promise<SpendAlertRecord[]>;
  /** After the batch's commit: the alerts it raised. */
  committed(raised: readonly SpendAlertRecord[]): void;
  /** `charged` failed, and was undone apart from the batch, which went on (its charges unwatched). */
  failed(err: unknown): void;
}
