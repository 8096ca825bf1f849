import { authV1 } from '@gw/contracts';
import { Logger } from '@gw/service-kit';
import { KeyCache } from '../domain/key-cache';
import { keyCacheTrusted } from '../edge-metrics';
import { AuthClient } from './auth-client';

/** auth-service speaks at least once a second; this long without a word, the stream is taken as dead. */
const SILENCE_MS = 3000;
const RETRY_MS = 500;
const MAX_RETRY_MS = 5000;

/**
 * Holds auth-service's change stream open and keeps the key cache coherent with it: each change
 * drops its entries and is then acknowledged; the cache is trusted from the stream's first word,
 * and distrusted (emptied) as soon as the stream ends, fails or falls silent, until it is back.
 */
export class IdentityWatch {
  private call: ReturnType<AuthClient['watchIdentityChanges']> | undefined;
  private lastHeard = 0;
  private readonly silenceTimer: NodeJS.Timeout;
  private retryTimer: NodeJS.Timeout | undefined;
  private stopped = false;
  private retryMs = RETRY_MS;

  constructor(
    private readonly auth: AuthClient,
    private readonly cache: KeyCache,
    private readonly logger: Logger,
  ) {
    this.silenceTimer = setInterval(() => {
      if (this.call && Date.now() - this.lastHeard > SILENCE_MS) this.lost('change stream silent');
    }, SILENCE_MS / 4);
    this.silenceTimer.unref();
    this.open();
  }

  stop(): void {
    this.stopped = true;
    clearInterval(this.silenceTimer);
    clearTimeout(this.retryTimer);
    this.cache.distrust();
    keyCacheTrusted.set(0);
    this.call?.cancel();
    this.call = undefined;
  }

  private open(): void {
    const call = this.auth.watchIdentityChanges();
    this.call = call;
    this.lastHeard = Date.now();
    call.on('data', (message: authV1.WatchIdentityChangesResponse) => {
      if (this.call !== call) return;
      this.lastHeard = Date.now();
      this.retryMs = RETRY_MS;
      if (!message.heartbeat) {
        if (message.keyId) this.cache.dropKey(message.keyId);
        if (message.accountId) this.cache.dropAccount(message.accountId);
        call.write({ appliedSequence: message.sequence, sync: 0 });
      }
      this.cache.trust();
      keyCacheTrusted.set(1);
    });
    call.on('error', (err: Error) => {
      if (this.call === call) this.lost(err.message);
    });
    call.on('end', () => {
      if (this.call === call) this.lost('change stream ended');
    });
  }

  private lost(reason: string): void {
    this.cache.distrust();
    keyCacheTrusted.set(0);
    const call = this.call;
    this.call = undefined;
    call?.cancel();
    if (this.stopped) return;
    // Said once per outage: a stream that keeps failing to open retries quietly, ever less often.
    if (this.retryMs === RETRY_MS) this.logger.warn('key cache off until the change stream is back', { reason });
    this.retryTimer = setTimeout(() => this.open(), this.retryMs);
    this.retryMs = Math.min(MAX_RETRY_MS, this.retryMs * 2);
  }
}
