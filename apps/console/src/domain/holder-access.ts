import { randomBytes } from 'node:crypto';
import { ConsoleStore, SessionRecord } from '../store/console-store';
import { hashPassword, passwordProblem, verifyPassword } from './password-hash';
import { newSecretToken, sha256Hex } from './secret-token';
import { SignInGuard } from './sign-in-guard';
import { DomainError } from '@gw/errors';

/** An invitation link works this long, once. */
export const INVITE_TTL_MS = 30 * 60_000;
/** A browser a holder signed in from stays known this long after the sign-in that made it known. */
export const KNOWN_DEVICE_TTL_MS = 90 * 86_400_000;
const EMAIL = /^[^\s@\p{Cc}]+@[^\s@\p{Cc}]+$/u;
const MAX_EMAIL = 254;

/** Whether a normalized sign-in name can be a holder's: an address of at most 254 characters, no control character. */
const isEmailAddress = (address: string): boolean => address.length <= MAX_EMAIL && EMAIL.test(address);

/** A new session, and the token of the browser it was opened in (the known-device cookie). */
export interface OpenedSession {
  sessionToken: string;
  deviceToken: string;
}

/** How a sign-in went: a session to set, wrong credentials, or too many attempts (retry later). */
export type SignInOutcome = ({ kind: 'signed-in' } & OpenedSession) | { kind: 'wrong' } | { kind: 'limited'; retryAfterMs: number };

/** The sign-in name as stored: trimmed, lower case. */
export const normalEmail = (email: string): string => email.trim().toLowerCase();

/**
 * Who may use the console: invitations (one-time links), passwords (memory-hard hashes) and
 * server-side sessions. Raw tokens leave only in links and cookies; the store keeps their SHA-256.
 */
export class HolderAccess {
  /** Verified against when the email is unknown, so that a wrong email takes as long as a wrong password. */
  private decoyHash: Promise<string> | undefined;

  constructor(
    private readonly store: ConsoleStore,
    private readonly guard: SignInGuard,
    private readonly settings: { sessionTtlMs: number; publicUrl: string },
    private readonly now: () => number = Date.now,
  ) {}

  /** A one-time link for the holder of `accountId` (the caller checked that the account exists). */
  async invite(accountId: string, email: string): Promise<{ link: string; expires: Date }> {
    const address = normalEmail(email);
    if (!isEmailAddress(address)) throw new DomainError('invalid-argument', 'email is not an email address');
    if (!accountId) throw new DomainError('invalid-argument', 'account_id is required');
    const { token, sha256 } = newSecretToken();
    const expires = new Date(this.now() + INVITE_TTL_MS);
    await this.store.addInvite({ tokenSha256: sha256, email: address, accountId, expiresAt: expires });
    return { link: `${this.settings.publicUrl}/invite/${token}`, expires };
  }

  /** The email of a usable invitation, else undefined. */
  async inviteEmail(token: string): Promise<string | undefined> {
    return (await this.store.findInvite(sha256Hex(token)))?.email;
  }

  /**
   * Sets the password of an invitation's holder and signs them in (the browser becomes a known
   * one); a problem with the password, or undefined for a used link. Every other outstanding
   * link for the email is void from then on.
   */
  async acceptInvite(token: string, password: string): Promise<OpenedSession | { problem: string } | undefined> {
    const problem = passwordProblem(password);
    if (problem) return { problem };
    const holder = await this.store.acceptInvite(
      sha256Hex(token),
      `holder_${randomBytes(12).toString('hex')}`,
      await hashPassword(password),
    );
    return holder && this.openSession(holder.id, undefined);
  }

  /**
   * Counts the attempt (SignInGuard) before the password is checked; `deviceToken` is the
   * browser's known-device cookie, if it sent one. A name that is no email address (a NUL in it,
   * say) is counted like any other and answered as wrong, without asking the store.
   */
  async signIn(email: string, password: string, clientAddress: string, deviceToken?: string): Promise<SignInOutcome> {
    const address = normalEmail(email);
    const possible = isEmailAddress(address);
    const device = deviceToken && possible ? sha256Hex(deviceToken) : undefined;
    const knownDevice = device && (await this.store.isKnownDevice(address, device)) ? device : undefined;
    const attempt = await this.guard.take(address, { address: clientAddress, knownDevice });
    if ('retryAfterMs' in attempt) return { kind: 'limited', retryAfterMs: attempt.retryAfterMs };
    const holder = possible ? await this.store.findHolderByEmail(address) : undefined;
    const matches = await verifyPassword(password, holder?.passwordHash ?? (await this.decoy()));
    if (!holder || !matches) return { kind: 'wrong' };
    await this.guard.succeeded(attempt.ticket);
    return { kind: 'signed-in', ...(await this.openSession(holder.id, knownDevice && deviceToken)) };
  }

  /** The session of a cookie's token, while it has not expired. */
  session(token: string): Promise<SessionRecord | undefined> {
    return this.store.findSession(sha256Hex(token));
  }

  async signOut(token: string): Promise<void> {
    await this.store.deleteSession(sha256Hex(token));
  }

  /** A new session, in a browser that is known from now on (a new device token unless it already was). */
  private async openSession(holderId: string, knownDeviceToken: string | undefined): Promise<OpenedSession> {
    const session = newSecretToken();
    await this.store.addSession({
      idSha256: session.sha256,
      holderId,
      csrfToken: newSecretToken().token,
      expiresAt: new Date(this.now() + this.settings.sessionTtlMs),
    });
    if (knownDeviceToken) return { sessionToken: session.token, deviceToken: knownDeviceToken };
    const device = newSecretToken();
    await this.store.addKnownDevice({ tokenSha256: device.sha256, holderId, expiresAt: new Date(this.now() + KNOWN_DEVICE_TTL_MS) });
    return { sessionToken: session.token, deviceToken: device.token };
  }

  private decoy(): Promise<string> {
    this.decoyHash ??= hashPassword(randomBytes(16).toString('hex'));
    return this.decoyHash;
  }
}
