import { authV1 } from '@gw/contracts';
import { KeyCache } from '../domain/key-cache';
import { AuthClient } from './auth-client';

/** What a change stream tells the IdentityWatch that holds it. */
export interface ChangeStreamEvents {
  /** A message came: a change (already applied to the cache and acknowledged) or a heartbeat. */
  heard(stream: ChangeStream, message: authV1.WatchIdentityChangesResponse): void;
  /** The stream ended or failed; it is closed. */
  lost(stream: ChangeStream, reason: string): void;
}

/**
 * One auth.v1 WatchIdentityChanges call. Each change it brings drops its entries from the key
 * cache and is then acknowledged on this stream, whichever role the stream has: dropping an entry
 * twice is harmless, and its replica waits for the acknowledgement. After `cancel`, or once it is
 * lost, nothing more is applied or reported.
 */
export class ChangeStream {
  /** When it last spoke (Date.now()). */
  lastHeard = Date.now();
  /**
   * A heartbeat has come: the stream is registered with its replica, and that replica's feed was
   * listening when it spoke, so every change made from then on comes on this stream.
   */
  registered = false;
  private closed = false;
  private readonly call: ReturnType<AuthClient['watchIdentityChanges']>;

  constructor(
    auth: AuthClient,
    private readonly cache: KeyCache,
    private readonly events: ChangeStreamEvents,
  ) {
    this.call = auth.watchIdentityChanges();
    this.call.on('data', (message: authV1.WatchIdentityChangesResponse) => this.onMessage(message));
    this.call.on('error', (err: Error) => this.end(err.message));
    this.call.on('end', () => this.end('change stream ended'));
  }

  /** Asks the replica for a heartbeat carrying `token` once it has sent every change made before now. */
  sync(token: number): void {
    if (!this.closed) this.call.write({ appliedSequence: 0, sync: token });
  }

  cancel(): void {
    this.closed = true;
    this.call.cancel();
  }

  private onMessage(message: authV1.WatchIdentityChangesResponse): void {
    if (this.closed) return;
    this.lastHeard = Date.now();
    if (message.heartbeat) {
      this.registered = true;
    } else {
      if (message.keyId) this.cache.dropKey(message.keyId);
      if (message.accountId) this.cache.dropAccount(message.accountId);
      this.call.write({ appliedSequence: message.sequence, sync: 0 });
    }
    this.events.heard(this, message);
  }

  private end(reason: string): void {
    if (this.closed) return;
    this.cancel();
    this.events.lost(this, reason);
  }
}
