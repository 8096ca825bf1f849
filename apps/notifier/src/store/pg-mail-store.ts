import { Database } from '@gw/service-kit';
import { HolderNotice, MailDraft } from '../domain/holder-notice';
import { ClaimedMail, MailRecord, MailState, MailStore } from './mail-store';

interface MailRow {
  id: string | number;
  message_id: string;
  recipient: string;
  subject: string;
  body: string;
  attempts: number;
  kind: string;
  event_at: Date;
  state: MailState;
  sent_at: Date | null;
}

const draftOf = (r: MailRow): MailDraft => ({ messageId: r.message_id, to: r.recipient, subject: r.subject, text: r.body });

/** MailStore on Postgres (or PGlite). */
export class PgMailStore implements MailStore {
  constructor(private readonly db: Database) {}

  async cursor(source: string): Promise<string> {
    const { rows } = await this.db.query<{ cursor: string }>('SELECT cursor FROM notifier.cursors WHERE source = $1', [source]);
    return rows[0]?.cursor ?? '';
  }

  take(notice: HolderNotice, cursor: string, mails: MailDraft[], state: 'kept' | 'pending'): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      const taken = await tx.query(
        `INSERT INTO notifier.taken_events (source, event_id, account_id, kind, event_at) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (source, event_id) DO NOTHING RETURNING event_id`,
        [notice.source, notice.id, notice.accountId, notice.kind, notice.at.toISOString()],
      );
      const fresh = taken.rows.length > 0;
      if (fresh && mails.length > 0)
        await tx.query(
          `INSERT INTO notifier.mails (message_id, source, event_id, account_id, kind, event_at, recipient, subject, body, state)
           SELECT m.message_id, $1, $2, $3, $4, $5, m.recipient, m.subject, m.body, $6
           FROM unnest($7::text[], $8::text[], $9::text[], $10::text[]) WITH ORDINALITY AS m(message_id, recipient, subject, body, n)
           ORDER BY m.n`,
          [
            notice.source,
            notice.id,
            notice.accountId,
            notice.kind,
            notice.at.toISOString(),
            state,
            mails.map((m) => m.messageId),
            mails.map((m) => m.to),
            mails.map((m) => m.subject),
            mails.map((m) => m.text),
          ],
        );
      await tx.query(
        `INSERT INTO notifier.cursors (source, cursor) VALUES ($1, $2)
         ON CONFLICT (source) DO UPDATE SET cursor = EXCLUDED.cursor, updated_at = now()`,
        [notice.source, cursor],
      );
      return fresh;
    });
  }

  async claimDue(limit: number, claimMs: number): Promise<ClaimedMail[]> {
    const { rows } = await this.db.query<MailRow>(
      `UPDATE notifier.mails m SET claimed_until = now() + $2 * interval '1 millisecond'
       WHERE m.id IN (
         SELECT id FROM notifier.mails
         WHERE state = 'pending' AND next_attempt_at <= now() AND (claimed_until IS NULL OR claimed_until <= now())
         ORDER BY next_attempt_at, id LIMIT $1 FOR UPDATE SKIP LOCKED)
       RETURNING m.id, m.message_id, m.recipient, m.subject, m.body, m.attempts, m.kind, m.event_at, m.state, m.sent_at`,
      [limit, claimMs],
    );
    return rows.map((r) => ({ ...draftOf(r), id: Number(r.id), attemptsBefore: r.attempts })).sort((a, b) => a.id - b.id);
  }

  async markSent(id: number): Promise<void> {
    await this.db.query(
      "UPDATE notifier.mails SET state = 'sent', sent_at = now(), attempts = attempts + 1, claimed_until = NULL, last_error = NULL WHERE id = $1",
      [id],
    );
  }

  async retryLater(id: number, inMs: number, error: string): Promise<void> {
    await this.db.query(
      `UPDATE notifier.mails SET attempts = attempts + 1, next_attempt_at = now() + $2 * interval '1 millisecond', claimed_until = NULL,
         last_error = $3 WHERE id = $1`,
      [id, inMs, error],
    );
  }

  async giveUp(id: number, error: string): Promise<void> {
    await this.db.query(
      "UPDATE notifier.mails SET state = 'failed', attempts = attempts + 1, claimed_until = NULL, last_error = $2 WHERE id = $1",
      [id, error],
    );
  }

  async nextDueInMs(): Promise<number | undefined> {
    const { rows } = await this.db.query<{ ms: string | number | null }>(
      `SELECT extract(epoch FROM min(greatest(next_attempt_at, coalesce(claimed_until, next_attempt_at))) - now()) * 1000 AS ms
       FROM notifier.mails WHERE state = 'pending'`,
    );
    const ms = rows[0]?.ms;
    return ms === null || ms === undefined ? undefined : Math.max(0, Math.ceil(Number(ms)));
  }

  async forAccount(accountId: string, limit: number): Promise<MailRecord[]> {
    const { rows } = await this.db.query<MailRow>(
      `SELECT id, message_id, recipient, subject, body, attempts, kind, event_at, state, sent_at FROM notifier.mails
       WHERE account_id = $1 ORDER BY event_at DESC, id DESC LIMIT $2`,
      [accountId, limit],
    );
    return rows.map((r) => ({ ...draftOf(r), kind: r.kind, eventAt: r.event_at, state: r.state, sentAt: r.sent_at ?? undefined }));
  }

  async backlog(): Promise<{ pending: number; oldestSeconds: number }> {
    const { rows } = await this.db.query<{ pending: string | number; oldest: string | number | null }>(
      `SELECT count(*) AS pending, extract(epoch FROM now() - min(created_at)) AS oldest FROM notifier.mails WHERE state = 'pending'`,
    );
    return { pending: Number(rows[0].pending), oldestSeconds: Math.max(0, Number(rows[0].oldest ?? 0)) };
  }
}
