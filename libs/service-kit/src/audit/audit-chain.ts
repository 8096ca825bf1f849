import { createHash } from 'node:crypto';

/** A value of an entry's details: flat, so that its canonical form is the sorted keys and nothing more. */
export type AuditValue = string | number | boolean | null;

/** A change to record: what, of which account (null: of the whole service), by whom and why. */
export interface AuditDraft {
  accountId: string | null;
  action: string;
  /** What changed; never key material beyond a key's id and 12-character prefix. */
  details: Readonly<Record<string, AuditValue>>;
  /** `holder:<email>` for a console session's holder, else the caller's certificate identity. */
  actor: string;
  /** The operator's reason; empty for none. */
  reason: string;
}

/** An entry of a chain as stored. */
export interface AuditEntry extends AuditDraft {
  /** From 1, with no gaps. */
  seq: number;
  at: Date;
  /** The hash of the entry before it; GENESIS_HASH for the first. */
  prevHash: string;
  /** sha256(prevHash, the entry's canonical form), lower-case hex. */
  hash: string;
}

/** Where a chain stops checking (audit.v1.ChainBreak). */
export interface ChainBreak {
  seq: number;
  problem: 'edited' | 'missing' | 'relinked' | 'inserted';
  detail: string;
}

/** What walking a chain found (audit.v1.ChainCheck). */
export interface ChainCheck {
  entries: number;
  ok: boolean;
  firstBad?: ChainBreak;
}

/** The prev_hash of a chain's first entry, and the head of an empty chain. */
export const GENESIS_HASH = '0'.repeat(64);

/**
 * The entry's canonical form: a JSON array of its fields in a fixed order, details as [key, value]
 * pairs sorted by key (jsonb gives keys back in its own order), the time in ISO-8601 with
 * milliseconds (as a Date and a timestamptz both keep it exactly).
 */
export function canonicalEntry(entry: Omit<AuditEntry, 'hash' | 'prevHash'>): string {
  const details = Object.keys(entry.details)
    .sort()
    .map((key) => [key, entry.details[key]]);
  return JSON.stringify([entry.seq, entry.at.toISOString(), entry.accountId, entry.action, details, entry.actor, entry.reason]);
}

/** sha256 of the hash before it, a newline and the entry's canonical form, lower-case hex. */
export function entryHash(prevHash: string, entry: Omit<AuditEntry, 'hash' | 'prevHash'>): string {
  return createHash('sha256')
    .update(`${prevHash}\n${canonicalEntry(entry)}`)
    .digest('hex');
}

/**
 * Walks one chain, entry by entry in seq order, against its head (the last seq and hash recorded
 * with every append): the first entry that does not check is named. An edited entry no longer
 * gives its hash; a deleted one leaves a gap, found at the entry after it (or, at the end, short of
 * the head); an entry rewritten hash and all breaks the link of the one after it (or the head).
 */
export class ChainWalker {
  private expectedSeq = 1;
  private prevHash = GENESIS_HASH;
  private entries = 0;
  private firstBad: ChainBreak | undefined;

  constructor(private readonly head: { seq: number; hash: string }) {}

  /** Checks the next entry (entries after the first bad one are only counted). */
  take(entry: AuditEntry): void {
    this.entries++;
    if (this.firstBad) return;
    this.firstBad = this.problemOf(entry);
    this.expectedSeq = entry.seq + 1;
    this.prevHash = entry.hash;
  }

  /** The check, once every entry has been taken. */
  end(): ChainCheck {
    const lastSeq = this.expectedSeq - 1;
    if (!this.firstBad && lastSeq < this.head.seq) {
      const gap = this.expectedSeq === this.head.seq ? `entry ${this.head.seq} is` : `entries ${this.expectedSeq} to ${this.head.seq} are`;
      this.firstBad = { seq: this.expectedSeq, problem: 'missing', detail: `${gap} missing at the end` };
    } else if (!this.firstBad && this.prevHash !== this.head.hash) {
      this.firstBad = {
        seq: lastSeq,
        problem: 'relinked',
        detail: `entry ${lastSeq} is not the last entry appended: it was rewritten, hash and all`,
      };
    }
    return this.firstBad ? { entries: this.entries, ok: false, firstBad: this.firstBad } : { entries: this.entries, ok: true };
  }

  private problemOf(entry: AuditEntry): ChainBreak | undefined {
    const { seq } = entry;
    if (seq > this.head.seq)
      return {
        seq,
        problem: 'inserted',
        detail: `entry ${seq} is past the chain's head (${this.head.seq}): it was not appended by the service`,
      };
    if (seq !== this.expectedSeq) {
      const gap = seq - 1 === this.expectedSeq ? `entry ${this.expectedSeq} is` : `entries ${this.expectedSeq} to ${seq - 1} are`;
      return { seq, problem: 'missing', detail: `${gap} missing before it` };
    }
    if (entryHash(entry.prevHash, entry) !== entry.hash)
      return { seq, problem: 'edited', detail: `entry ${seq} no longer gives its hash: it was edited` };
    if (entry.prevHash !== this.prevHash) {
      return {
        seq,
        problem: 'relinked',
        detail: `entry ${seq} does not follow entry ${seq - 1}: that one was rewritten, or entries were put in`,
      };
    }
    return undefined;
  }
}
