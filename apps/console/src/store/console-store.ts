/** A holder of an account, as the console knows them. */
export interface HolderRecord {
  id: string;
  email: string;
  accountId: string;
  passwordHash: string;
}

/** A signed-in session: its holder and the token its forms must carry. */
export interface SessionRecord {
  holder: HolderRecord;
  csrfToken: string;
}

/** What the console keeps (Postgres schema `console`); tokens only as their SHA-256. */
export interface ConsoleStore {
  addInvite(invite: { tokenSha256: string; email: string; accountId: string; expiresAt: Date }): Promise<void>;
  /** Whether an invitation is still usable (not used, not expired): its email. */
  findInvite(tokenSha256: string): Promise<{ email: string } | undefined>;
  /**
   * Uses an invitation once: sets the holder's password (a new holder, or the same email
   * invited again) in the same transaction, ends the holder's sessions and voids every other
   * outstanding invitation for the email. Undefined when it was used, expired or unknown.
   */
  acceptInvite(tokenSha256: string, newHolderId: string, passwordHash: string): Promise<HolderRecord | undefined>;
  findHolderByEmail(email: string): Promise<HolderRecord | undefined>;
  addSession(session: { idSha256: string; holderId: string; csrfToken: string; expiresAt: Date }): Promise<void>;
  /** A session that has not expired. */
  findSession(idSha256: string): Promise<SessionRecord | undefined>;
  deleteSession(idSha256: string): Promise<void>;
  /** Remembers a browser the holder signed in from (its cookie's token as SHA-256). */
  addKnownDevice(device: { tokenSha256: string; holderId: string; expiresAt: Date }): Promise<void>;
  /** Whether a browser's token is one the holder of `email` signed in from, and has not expired. */
  isKnownDevice(email: string, tokenSha256: string): Promise<boolean>;
  /** Removes expired sessions, invitations and known browsers. */
  deleteExpired(): Promise<void>;
}
