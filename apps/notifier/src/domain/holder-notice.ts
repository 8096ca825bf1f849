import { HolderEventKindName, HolderEventValue } from '@gw/service-kit';

/** A holder event as the notifier takes it from a service's stream. */
export interface HolderNotice {
  /** The service that recorded it: auth-service or billing-service. */
  source: string;
  /** Its id in that service. */
  id: number;
  at: Date;
  accountId: string;
  kind: HolderEventKindName;
  details: Record<string, HolderEventValue>;
}

/** A mail as written, before it is kept. */
export interface MailDraft {
  messageId: string;
  to: string;
  subject: string;
  text: string;
}
