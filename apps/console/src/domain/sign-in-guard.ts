import { AttemptBound, SignInAttemptStore } from '../store/sign-in-attempt-store';
import { sha256Hex } from './secret-token';

/** How sign-in guessing is bounded (see SignInGuard). */
export interface SignInLimits {
  /** Attempts per email from one client (a client address, or a browser the holder signed in from) in one window. */
  perClient: number;
  /** Attempts from one client address, whatever the email, in one window. */
  perAddress: number;
  /** Attempts per email from clients the holder never signed in from, after which they are slowed. */
  perEmailBeforeSlowing: number;
  /** Once slowed, one attempt per this many milliseconds for the email from such clients. */
  slowIntervalMs: number;
  /** Length of a window, which starts at a count's first attempt. */
  windowMs: number;
}

/** The limits that follow from the per-client bound, as the console's settings give them. */
export function signInLimits(perClient: number, windowMs: number, slowIntervalMs: number): SignInLimits {
  return { perClient, perAddress: 4 * perClient, perEmailBeforeSlowing: 2 * perClient, slowIntervalMs, windowMs };
}

/** Where an attempt comes from: the client's address, and the browser when the holder signed in from it before. */
export interface SignInClient {
  address: string;
  /** SHA-256 of the known-device cookie's token, when it belongs to the email's holder. */
  knownDevice?: string;
}

/** What was counted for an attempt, to settle once the password turned out right. */
export interface AttemptTicket {
  forget: string[];
  giveBack: string[];
}

/**
 * Bounds password guessing. Every attempt is counted, in the store all replicas share, before
 * its password is checked, so guesses sent together are bounded as guesses sent one by one.
 *
 * - Per (email, client): `perClient` attempts per window, then refused until it ends. The
 *   client is the holder's known browser when it shows its cookie, else the client address.
 * - Per client address: `perAddress` attempts per window over all emails (guessing many
 *   accounts from one place), refused past that.
 * - Per email, from clients the holder never signed in from: past `perEmailBeforeSlowing`,
 *   one attempt per `slowIntervalMs`. Guesses from many addresses are slowed down to that pace,
 *   but never refuse the holder: their own browser is counted only per (email, browser), and a
 *   new one waits at most one interval for a turn (or the holder uses a new invitation link).
 *
 * A right password forgets the email's counts and gives the address its attempt back; a wrong
 * one stays counted. Keys are hashed, so the store holds no email or address.
 */
export class SignInGuard {
  constructor(
    private readonly store: SignInAttemptStore,
    private readonly limits: SignInLimits,
    private readonly now: () => number = Date.now,
  ) {}

  /** Counts an attempt for `email` (normalised) from `client`: its ticket, or how long to wait. */
  async take(email: string, client: SignInClient): Promise<{ ticket: AttemptTicket } | { retryAfterMs: number }> {
    const { limits } = this;
    const bounds: AttemptBound[] = client.knownDevice
      ? [{ key: key('device', email, client.knownDevice), limit: limits.perClient }]
      : [
          { key: key('client', email, client.address), limit: limits.perClient },
          { key: key('address', client.address), limit: limits.perAddress },
          { key: key('email', email), limit: limits.perEmailBeforeSlowing, slowIntervalMs: limits.slowIntervalMs },
        ];
    const outcome = await this.store.take(bounds, limits.windowMs, this.now());
    if (!outcome.taken) return { retryAfterMs: Math.max(1000, outcome.retryAfterMs) };
    const [first, address, emailWide] = bounds.map((b) => b.key);
    return { ticket: client.knownDevice ? { forget: [first], giveBack: [] } : { forget: [first, emailWide], giveBack: [address] } };
  }

  /** The password was right: the attempt no longer counts against the holder. */
  succeeded(ticket: AttemptTicket): Promise<void> {
    return this.store.settle(ticket.forget, ticket.giveBack, this.now());
  }

  deleteEnded(): Promise<void> {
    return this.store.deleteEnded(this.now());
  }
}

const key = (...parts: string[]): string => sha256Hex(parts.join('\n'));
