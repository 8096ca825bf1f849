import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

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
  /** HMAC-SHA256(AUDIT_KEY, hash), lower-case hex; null for an entry written before links were keyed. */
  mac: string | null;
}

/** A chain's last link as an operator keeps it outside the database (audit.v1.Checkpoint, without the service). */
export interface ChainPoint {
  seq: number;
  hash: string;
  /** Empty for an unkeyed link. */
  mac: string;
  /** When that link was written, ISO-8601 UTC. */
  at: string;
}

/** Where a chain stops checking (audit.v1.ChainBreak). */
export interface ChainBreak {
  seq: number;
  problem: 'edited' | 'missing' | 'relinked' | 'inserted' | 'forged' | 'unkeyed' | 'checkpoint-cut' | 'checkpoint-diverged';
  detail: string;
}

/** What walking a chain found (audit.v1.ChainCheck). */
export interface ChainCheck {
  entries: number;
  ok: boolean;
  firstBad?: ChainBreak;
  /** Entries before the first keyed link (written before links were keyed), accepted as a prefix only. */
  unkeyedEntries: number;
  /** The last link, when the chain checks and has one: a checkpoint to keep. */
  head?: ChainPoint;
}

/** The prev_hash of a chain's first entry, and the head of an empty chain. */
export const GENESIS_HASH = '0'.repeat(64);

/**
 * The entry's canonical form: a JSON array of its fields in a fixed order, details as [key, value]
 * pairs sorted by key (jsonb gives keys back in its own order), the time in ISO-8601 with
 * milliseconds (as a Date and a timestamptz both keep it exactly).
 */
export function canonicalEntry(entry: Omit<AuditEntry, 'hash' | 'prevHash' | 'mac'>): string {
  const details = Object.keys(entry.details)
    .sort()
    .map((key) => [key, entry.details[key]]);
  return JSON.stringify([entry.seq, entry.at.toISOString(), entry.accountId, entry.action, details, entry.actor, entry.reason]);
}

/** sha256 of the hash before it, a newline and the entry's canonical form, lower-case hex. */
export function entryHash(prevHash: string, entry: Omit<AuditEntry, 'hash' | 'prevHash' | 'mac'>): string {
  return createHash('sha256')
    .update(`${prevHash}\n${canonicalEntry(entry)}`)
    .digest('hex');
}

/** A chain's key (AUDIT_KEY): a deployment secret that the database never holds. */
export type AuditKey = Buffer;

/** HMAC-SHA256 of a link's hash under the chain's key, lower-case hex. */
export const linkMac = (key: AuditKey, hash: string): string => createHmac('sha256', key).update(hash).digest('hex');

/** Whether `mac` is the link's under `key` (compared in constant time). */
export function macMatches(key: AuditKey, hash: string, mac: string): boolean {
  const expected = Buffer.from(linkMac(key, hash), 'hex');
  const given = Buffer.from(mac, 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/**
 * Walks one chain, entry by entry in seq order, against its head (the last seq and hash recorded
 * with every append): the first entry that does not check is named. An edited entry no longer
 * gives its hash; a deleted one leaves a gap, found at the entry after it (or, at the end, short of
 * the head); an entry rewritten hash and all breaks the link of the one after it (or the head).
 * Every link's mac is checked under the key, so a chain rewritten and re-hashed without the key
 * fails at its first rewritten link; links without a mac pass only among the first
 * `unkeyedEntries` (AUDIT_UNKEYED_ENTRIES: those an upgraded deployment wrote before its links were
 * keyed, 0 for one keyed from the start) and before the first keyed link, so that macs stripped
 * from a whole chain do not pass it off as written before keying. Given a checkpoint kept outside the database, the
 * chain must reach it and hold the same link there: a cut tail, a rolled-back head or a rewritten
 * prefix does not.
 */
export class ChainWalker {
  private expectedSeq = 1;
  private prevHash = GENESIS_HASH;
  private entries = 0;
  private unkeyed = 0;
  private keyedSince: number | undefined;
  private last: ChainPoint | undefined;
  private firstBad: ChainBreak | undefined;

  constructor(
    private readonly head: { seq: number; hash: string },
    private readonly key: AuditKey,
    private readonly checkpoint?: ChainPoint,
    private readonly unkeyedEntries = 0,
  ) {}

  /** Checks the next entry (entries after the first bad one are only counted). */
  take(entry: AuditEntry): void {
    this.entries++;
    if (this.firstBad) return;
    this.firstBad = this.problemOf(entry) ?? this.keyProblemOf(entry) ?? this.checkpointProblemOf(entry);
    this.expectedSeq = entry.seq + 1;
    this.prevHash = entry.hash;
    this.last = { seq: entry.seq, hash: entry.hash, mac: entry.mac ?? '', at: entry.at.toISOString() };
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
    if (!this.firstBad && this.checkpoint && lastSeq < this.checkpoint.seq) {
      this.firstBad = {
        seq: this.checkpoint.seq,
        problem: 'checkpoint-cut',
        detail: `the chain ends at entry ${lastSeq}, short of the checkpoint's entry ${this.checkpoint.seq} (${this.checkpoint.at}): its tail was cut or its head rolled back`,
      };
    }
    const counts = { entries: this.entries, unkeyedEntries: this.unkeyed };
    if (this.firstBad) return { ...counts, ok: false, firstBad: this.firstBad };
    return this.last ? { ...counts, ok: true, head: this.last } : { ...counts, ok: true };
  }

  private keyProblemOf(entry: AuditEntry): ChainBreak | undefined {
    const { seq } = entry;
    if (entry.mac === null) {
      // A keyed checkpoint says the links were keyed by then: macs stripped from a whole chain do not make it a prefix.
      const keyedByCheckpoint = !!this.checkpoint?.mac && seq >= this.checkpoint.seq;
      if (this.keyedSince === undefined && !keyedByCheckpoint && seq <= this.unkeyedEntries) {
        this.unkeyed++;
        return undefined;
      }
      const keyedFrom = this.keyedSince ?? (keyedByCheckpoint ? this.checkpoint?.seq : this.unkeyedEntries + 1);
      return {
        seq,
        problem: 'unkeyed',
        detail: `entry ${seq} has no mac, yet the links are keyed from entry ${keyedFrom} on (AUDIT_UNKEYED_ENTRIES ${this.unkeyedEntries}): it was put in or rewritten without the key`,
      };
    }
    this.keyedSince ??= seq;
    if (!macMatches(this.key, entry.hash, entry.mac))
      return { seq, problem: 'forged', detail: `entry ${seq}'s mac is not its hash's under AUDIT_KEY: it was written without the key` };
    return undefined;
  }

  private checkpointProblemOf(entry: AuditEntry): ChainBreak | undefined {
    if (!this.checkpoint || entry.seq !== this.checkpoint.seq || entry.hash === this.checkpoint.hash) return undefined;
    return {
      seq: entry.seq,
      problem: 'checkpoint-diverged',
      detail: `entry ${entry.seq} is not the checkpoint's (${this.checkpoint.at}): the chain up to it was rewritten`,
    };
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
