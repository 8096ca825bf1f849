import { Database } from '@gw/service-kit';
import { ConsoleStore, HolderRecord, SessionRecord } from './console-store';

interface HolderRow {
  id: string;
  email: string;
  account_id: string;
  password_hash: string;
}

const toHolder = (r: HolderRow): HolderRecord => ({ id: r.id, email: r.email, accountId: r.account_id, passwordHash: r.password_hash });

/** ConsoleStore on Postgres (or PGlite). */
export class PgConsoleStore implements ConsoleStore {
  constructor(private readonly db: Database) {}

  async addInvite(invite: { tokenSha256: string; email: string; accountId: string; expiresAt: Date }): Promise<void> {
    await this.db.query('INSERT INTO console.invites (token_sha256, email, account_id, expires_at) VALUES ($1, $2, $3, $4)', [
      invite.tokenSha256,
      invite.email,
      invite.accountId,
      invite.expiresAt,
    ]);
  }

  async findInvite(tokenSha256: string): Promise<{ email: string } | undefined> {
    const { rows } = await this.db.query<{ email: string }>(
      'SELECT email FROM console.invites WHERE token_sha256 = $1 AND used_at IS NULL AND expires_at > now()',
      [tokenSha256],
    );
    return rows[0];
  }

  acceptInvite(tokenSha256: string, newHolderId: string, passwordHash: string): Promise<HolderRecord | undefined> {
    return this.db.transaction(async (tx) => {
      // Every invitation of the email is locked, in one order, before any is used: two links
      // used at once wait on each other instead of each setting a password.
      await tx.query(
        `SELECT 1 FROM console.invites WHERE email = (SELECT email FROM console.invites WHERE token_sha256 = $1)
         ORDER BY token_sha256 FOR UPDATE`,
        [tokenSha256],
      );
      const { rows } = await tx.query<{ email: string; account_id: string }>(
        'UPDATE console.invites SET used_at = now() WHERE token_sha256 = $1 AND used_at IS NULL AND expires_at > now() RETURNING email, account_id',
        [tokenSha256],
      );
      const invite = rows[0];
      if (!invite) return undefined;
      await tx.query('UPDATE console.invites SET used_at = now() WHERE email = $1 AND used_at IS NULL', [invite.email]);
      const holder = await tx.query<HolderRow>(
        `INSERT INTO console.holders (id, email, account_id, password_hash) VALUES ($1, $2, $3, $4)
         ON CONFLICT (email) DO UPDATE SET account_id = EXCLUDED.account_id, password_hash = EXCLUDED.password_hash
         RETURNING id, email, account_id, password_hash`,
        [newHolderId, invite.email, invite.account_id, passwordHash],
      );
      // A new password ends the sessions opened with the old one.
      await tx.query('DELETE FROM console.sessions WHERE holder_id = $1', [holder.rows[0].id]);
      return toHolder(holder.rows[0]);
    });
  }

  async findHolderByEmail(email: string): Promise<HolderRecord | undefined> {
    const { rows } = await this.db.query<HolderRow>('SELECT id, email, account_id, password_hash FROM console.holders WHERE email = $1', [
      email,
    ]);
    return rows[0] && toHolder(rows[0]);
  }

  async addSession(session: { idSha256: string; holderId: string; csrfToken: string; expiresAt: Date }): Promise<void> {
    await this.db.query('INSERT INTO console.sessions (id_sha256, holder_id, csrf_token, expires_at) VALUES ($1, $2, $3, $4)', [
      session.idSha256,
      session.holderId,
      session.csrfToken,
      session.expiresAt,
    ]);
  }

  async findSession(idSha256: string): Promise<SessionRecord | undefined> {
    const { rows } = await this.db.query<HolderRow & { csrf_token: string }>(
      `SELECT h.id, h.email, h.account_id, h.password_hash, s.csrf_token
       FROM console.sessions s JOIN console.holders h ON h.id = s.holder_id
       WHERE s.id_sha256 = $1 AND s.expires_at > now()`,
      [idSha256],
    );
    return rows[0] && { holder: toHolder(rows[0]), csrfToken: rows[0].csrf_token };
  }

  async deleteSession(idSha256: string): Promise<void> {
    await this.db.query('DELETE FROM console.sessions WHERE id_sha256 = $1', [idSha256]);
  }

  async addKnownDevice(device: { tokenSha256: string; holderId: string; expiresAt: Date }): Promise<void> {
    await this.db.query('INSERT INTO console.known_devices (token_sha256, holder_id, expires_at) VALUES ($1, $2, $3)', [
      device.tokenSha256,
      device.holderId,
      device.expiresAt,
    ]);
  }

  async isKnownDevice(email: string, tokenSha256: string): Promise<boolean> {
    const { rows } = await this.db.query(
      `SELECT 1 FROM console.known_devices d JOIN console.holders h ON h.id = d.holder_id
       WHERE d.token_sha256 = $1 AND h.email = $2 AND d.expires_at > now()`,
      [tokenSha256, email],
    );
    return rows.length > 0;
  }

  async deleteExpired(): Promise<void> {
    await this.db.query('DELETE FROM console.sessions WHERE expires_at <= now()');
    await this.db.query('DELETE FROM console.invites WHERE expires_at <= now()');
    await this.db.query('DELETE FROM console.known_devices WHERE expires_at <= now()');
  }
}
