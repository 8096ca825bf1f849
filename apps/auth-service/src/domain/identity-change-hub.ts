import { DomainError } from '@gw/errors';

/** A change that must drop cached authentications: of one key, or of every key of an account. */
export interface IdentityChange {
  keyId?: string;
  accountId?: string;
}

/** What a watcher (one edge's stream) is sent. */
export interface WatcherMessage {
  sequence: number;
  keyId: string;
  accountId: string;
  heartbeat: boolean;
  /** On a heartbeat, the sync of this watcher it answers; else 0. */
  synced: number;
}

/** One edge's change stream, as the hub drives it. */
export interface Watcher {
  send(message: WatcherMessage): void;
  /** Ends the stream with an error: the edge stops trusting its cache. */
  end(reason: string): void;
}

interface WatcherState {
  applied: number;
  waiting: { sequence: number; done(): void }[];
  /** The last sync the watcher asked for that no check of the feed has taken yet; 0 for none. */
  syncAsked: number;
}

/** Syncs taken by a check of the feed, by watcher: answered by the heartbeat that follows the check. */
export type TakenSyncs = ReadonlyMap<Watcher, number>;

const NO_SYNCS: TakenSyncs = new Map();

/**
 * The edges connected to this replica and what they have applied. `deliver` sends a change to
 * every one and resolves once each has acknowledged it, or has had its stream ended for not
 * doing so within `ackTimeoutMs`: either way, no edge of this replica trusts an entry the change
 * made stale.
 */
export class IdentityChangeHub {
  private readonly watchers = new Map<Watcher, WatcherState>();
  private sequence = 0;

  constructor(private readonly ackTimeoutMs: number) {}

  /**
   * Registers a stream; its handle records acknowledgements and removes it when it closes. An
   * acknowledgement is of a change sent: from 0 to the last sequence number, else INVALID_ARGUMENT
   * (an edge that claimed a change not yet made would have the next one count as applied). A
   * sync is answered by the heartbeat after the feed's next check (takeSyncs); a later sync
   * asked before that check replaces it (an edge waits for one at a time).
   */
  add(watcher: Watcher): { acknowledge(sequence: number): void; sync(token: number): void; remove(): void } {
    const state: WatcherState = { applied: this.sequence, waiting: [], syncAsked: 0 };
    this.watchers.set(watcher, state);
    return {
      acknowledge: (sequence) => {
        if (!Number.isInteger(sequence) || sequence < 0 || sequence > this.sequence) {
          throw new DomainError('invalid-argument', `applied_sequence must be a change sent: 0 to ${this.sequence}`);
        }
        state.applied = Math.max(state.applied, sequence);
        state.waiting = state.waiting.filter((w) => (w.sequence <= state.applied ? (w.done(), false) : true));
      },
      sync: (token) => {
        state.syncAsked = token;
      },
      remove: () => this.remove(watcher),
    };
  }

  get size(): number {
    return this.watchers.size;
  }

  async deliver(change: IdentityChange): Promise<void> {
    const sequence = ++this.sequence;
    const message: WatcherMessage = { sequence, keyId: change.keyId ?? '', accountId: change.accountId ?? '', heartbeat: false, synced: 0 };
    await Promise.all(
      [...this.watchers].map(
        ([watcher, state]) =>
          new Promise<void>((resolve) => {
            const timer = setTimeout(() => {
              watcher.end(`change ${sequence} not acknowledged within ${this.ackTimeoutMs} ms`);
              this.remove(watcher);
            }, this.ackTimeoutMs);
            state.waiting.push({ sequence, done: () => (clearTimeout(timer), resolve()) });
            watcher.send(message);
          }),
      ),
    );
  }

  /**
   * The syncs asked for until now, taken by the feed as a check of its connection starts: once the
   * check has succeeded, every change made before they arrived has been handed to the watchers,
   * and `heartbeat(taken)` answers them.
   */
  takeSyncs(): TakenSyncs {
    const taken = new Map<Watcher, number>();
    for (const [watcher, state] of this.watchers) {
      if (state.syncAsked) taken.set(watcher, state.syncAsked);
      state.syncAsked = 0;
    }
    return taken;
  }

  /**
   * Tells every edge the stream is alive and every change before now has been sent; the heartbeat
   * of a watcher in `answered` carries its sync (a watcher gone since is not answered).
   */
  heartbeat(answered: TakenSyncs = NO_SYNCS): void {
    for (const watcher of this.watchers.keys()) {
      watcher.send({ sequence: this.sequence, keyId: '', accountId: '', heartbeat: true, synced: answered.get(watcher) ?? 0 });
    }
  }

  /** Ends every stream (shutdown, or the change feed lost): every edge drops its cache. */
  endAll(reason: string): void {
    for (const watcher of [...this.watchers.keys()]) {
      watcher.end(reason);
      this.remove(watcher);
    }
  }

  private remove(watcher: Watcher): void {
    const state = this.watchers.get(watcher);
    if (!state) return;
    this.watchers.delete(watcher);
    for (const w of state.waiting) w.done();
  }
}
