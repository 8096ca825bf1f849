import { authV1 } from '@gw/contracts';

interface Entry {
  owner: authV1.AuthenticateResponse;
  /** A suspension with an end stops applying then: the entry is not used past it. */
  expiresAt: number;
}

/**
 * What auth-service said about keys, by SHA-256, used only while the change stream says every
 * change has reached this edge (`trust`/`distrust`, driven by IdentityWatch). A lookup takes a
 * ticket before it asks auth-service and may keep its answer only if nothing was dropped or
 * distrusted since: an answer read before a change is never kept after it. Only keys that were
 * found are kept, at most `maxEntries` (the oldest go first).
 */
export class KeyCache {
  private readonly entries = new Map<string, Entry>();
  private readonly shaOfKey = new Map<string, string>();
  private readonly shasOfAccount = new Map<string, Set<string>>();
  private generation = 0;
  private trusted = false;

  constructor(
    private readonly maxEntries: number,
    private readonly now: () => number = Date.now,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  /** A cached answer, or undefined: none, expired, or the cache is not trusted now. */
  get(keySha256: string): authV1.AuthenticateResponse | undefined {
    if (!this.trusted) return undefined;
    const entry = this.entries.get(keySha256);
    if (!entry) return undefined;
    if (entry.expiresAt <= this.now()) {
      this.remove(keySha256);
      return undefined;
    }
    return entry.owner;
  }

  /** Taken before asking auth-service; `keep` compares it. */
  ticket(): number {
    return this.generation;
  }

  keep(keySha256: string, owner: authV1.AuthenticateResponse, ticket: number): void {
    if (!this.trusted || ticket !== this.generation || !owner.found) return;
    if (this.entries.size >= this.maxEntries) this.remove(this.entries.keys().next().value as string);
    const until = owner.suspension?.until ? Date.parse(owner.suspension.until) : Number.POSITIVE_INFINITY;
    this.remove(keySha256);
    this.entries.set(keySha256, { owner, expiresAt: Number.isNaN(until) ? 0 : until });
    this.shaOfKey.set(owner.keyId, keySha256);
    let shas = this.shasOfAccount.get(owner.accountId);
    if (!shas) this.shasOfAccount.set(owner.accountId, (shas = new Set()));
    shas.add(keySha256);
  }

  /** A revoked key. */
  dropKey(keyId: string): void {
    this.generation++;
    const sha = this.shaOfKey.get(keyId);
    if (sha) this.remove(sha);
  }

  /** An account suspended, unsuspended, scheduled for deletion or granted a model. */
  dropAccount(accountId: string): void {
    this.generation++;
    for (const sha of [...(this.shasOfAccount.get(accountId) ?? [])]) this.remove(sha);
  }

  /** The change stream is live: answers asked for from now on may be kept. */
  trust(): void {
    if (this.trusted) return;
    this.generation++;
    this.trusted = true;
  }

  /** The change stream is down or silent: nothing cached may be used, or kept. */
  distrust(): void {
    this.generation++;
    this.trusted = false;
    this.entries.clear();
    this.shaOfKey.clear();
    this.shasOfAccount.clear();
  }

  private remove(keySha256: string): void {
    const entry = this.entries.get(keySha256);
    if (!entry) return;
    this.entries.delete(keySha256);
    this.shaOfKey.delete(entry.owner.keyId);
    const shas = this.shasOfAccount.get(entry.owner.accountId);
    shas?.delete(keySha256);
    if (shas?.size === 0) this.shasOfAccount.delete(entry.owner.accountId);
  }
}
