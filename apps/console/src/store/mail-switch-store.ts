import { HolderEventKindName } from '@gw/service-kit';

/** A holder mail is sent to, with the kinds they switched off. */
export interface MailRecipientRecord {
  email: string;
  switchedOff: HolderEventKindName[];
}

/** The kinds of mail each holder switched off (Postgres schema `console`); every kind is on until switched off. */
export interface MailSwitchStore {
  /** The kinds the holder switched off. */
  switchedOff(holderId: string): Promise<HolderEventKindName[]>;
  /** Replaces the kinds the holder switched off. */
  setSwitchedOff(holderId: string, kinds: readonly HolderEventKindName[]): Promise<void>;
  /** Every holder of the account, by email, with the kinds each switched off. */
  recipients(accountId: string): Promise<MailRecipientRecord[]>;
}
