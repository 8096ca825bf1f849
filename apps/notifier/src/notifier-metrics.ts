import { counter, gauge, sampledGauge } from '@gw/service-kit';
import { MailStore } from './store/mail-store';

/** Events taken from a service's stream, by source and outcome (new: mailed; repeated: taken before, nothing mailed again). */
export const eventsTaken = counter(
  'notifier_events_taken_total',
  'Holder events taken from a service, by source and outcome (new, repeated).',
  ['source', 'outcome'],
);

/** Mails written, by state: kept (the local outbox) or pending (to be sent). */
export const mailsWritten = counter(
  'notifier_mails_written_total',
  'Mails written for holder events, by state (kept: no mail server; pending: to send).',
  ['state'],
);

/** Tries of a mail, by outcome: sent, or failed (the server refused it, or could not be reached). */
export const sendAttempts = counter('notifier_mail_send_attempts_total', 'Tries to send a mail, by outcome (sent, failed).', ['outcome']);

/** Mails given up after their last try. */
export const mailsGivenUp = counter('notifier_mails_given_up_total', 'Mails given up after MAIL_MAX_ATTEMPTS failed tries.');

/** 1 while a service's event stream is open. */
export const streamUp = gauge('notifier_event_stream_up', "1 while the notifier follows a service's holder events (by source), else 0.", [
  'source',
]);

/** Gauges read from the store when scraped: pending mails and the age of the oldest. */
export function watchMailBacklog(store: MailStore): void {
  sampledGauge('notifier_mails_pending', 'Mails waiting to be sent (or retried).', async () => (await store.backlog()).pending);
  sampledGauge(
    'notifier_mail_oldest_pending_seconds',
    'How long the oldest mail waiting to be sent has waited, seconds (0 when none): it grows while the mail server refuses or cannot be reached.',
    async () => (await store.backlog()).oldestSeconds,
  );
}
