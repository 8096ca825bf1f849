import { Database, HolderEventKindName, isHolderEventKind } from '@gw/service-kit';
import { MailRecipientRecord, MailSwitchStore } from './mail-switch-store';

/** MailSwitchStore on Postgres (or PGlite): console.mail_switches holds one row per kind switched off. */
export class PgMailSwitchStore implements MailSwitchStore {
  constructor(private readonly db: Database) {}

  async switchedOff(holderId: string): Promise<HolderEventKindName[]> {
    const { rows } = await this.db.query<{ kind: string }>('SELECT kind FROM console.mail_switches WHERE holder_id = $1 ORDER BY kind', [
      holderId,
    ]);
    return rows.map((r) => r.kind).filter(isHolderEventKind);
  }

  async setSwitchedOff(holderId: string, kinds: readonly HolderEventKindName[]): Promise<void> {
    await this.db.transaction(async (tx) => {
      await tx.query('DELETE FROM console.mail_switches WHERE holder_id = $1', [holderId]);
      if (kinds.length)
        await tx.query('INSERT INTO console.mail_switches (holder_id, kind) SELECT $1, unnest($2::text[])', [holderId, [...kinds]]);
    });
  }

  async recipients(accountId: string): Promise<MailRecipientRecord[]> {
    const { rows } = await this.db.query<{ email: string; off: string[] | null }>(
      `SELECT h.email, array_agg(s.kind ORDER BY s.kind) FILTER (WHERE s.kind IS NOT NULL) AS off
       FROM console.holders h LEFT JOIN console.mail_switches s ON s.holder_id = h.id
       WHERE h.account_id = $1 GROUP BY h.email ORDER BY h.email`,
      [accountId],
    );
    return rows.map((r) => ({ email: r.email, switchedOff: (r.off ?? []).filter(isHolderEventKind) }));
  }
}
