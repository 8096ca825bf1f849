import { authV1 } from '@gw/contracts';
import { Logger } from '@gw/service-kit';
import { KeyCache } from '../domain/key-cache';
import { keyCacheFlushes, keyCacheHandovers, keyCacheStreams, keyCacheTrusted } from '../edge-metrics';
import { AuthClient } from './auth-client';
import { ChangeStream, ChangeStreamEvents } from './change-stream';

/** auth-service speaks at least once a second; this long without a word, the stream is taken as dead. */
const SILENCE_MS = 3000;
const RETRY_MS = 500;
const MAX_RETRY_MS = 5000;

/** How often the edge moves to a new change stream, and how long it waits for the old one's sync. */
export interface HandoverTimes {
  /**
   * A stream is handed over this long after it became the one the cache follows. Below the 30 s
   * auth-service gives a connection past its maximum age (60 s) to finish its calls, so one
   * handover always opens its stream on a new connection and ends before the old one is cut.
   */
  everyMs: number;
  /** A sync unanswered this long (a replica answers within two heartbeats; an earlier version never does): the handover is given up. */
  syncTimeoutMs: number;
}

const HANDOVER_TIMES: HandoverTimes = { everyMs: 20_000, syncTimeoutMs: 5000 };

/**
 * Holds auth-service's change stream open and keeps the key cache coherent with it. The cache is
 * trusted from the stream's first word, and distrusted (emptied) as soon as it ends, fails or
 * falls silent, until a stream speaks again.
 *
 * A connection's maximum age would cut the stream every 90 s at most, so before that the watch
 * hands over to a new stream (the candidate) without emptying the cache: once the candidate is
 * registered with its replica (its first heartbeat), a sync is sent on the old stream; its answer
 * says every change made before the candidate registered has come on the old stream, and every
 * later one comes on the candidate, which then replaces it. Changes on either stream are applied.
 * A sync that is not answered (an auth-service of an earlier version) gives the candidate up, and
 * the cache is emptied when the old stream is cut, as it was before syncs existed.
 */
export class IdentityWatch implements ChangeStreamEvents {
  private primary: ChangeStream | undefined;
  private candidate: ChangeStream | undefined;
  /** The sync sent on the primary for the candidate; 0 until the candidate is registered. */
  private syncToken = 0;
  private syncsSent = 0;
  private trusted = false;
  private readonly silenceTimer: NodeJS.Timeout;
  private handoverTimer: NodeJS.Timeout | undefined;
  private syncTimer: NodeJS.Timeout | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private stopped = false;
  private retryMs = RETRY_MS;
  private toldUnanswered = false;

  constructor(
    private readonly auth: AuthClient,
    private readonly cache: KeyCache,
    private readonly logger: Logger,
    private readonly times: HandoverTimes = HANDOVER_TIMES,
  ) {
    this.silenceTimer = setInterval(() => this.checkSilence(), SILENCE_MS / 4);
    this.silenceTimer.unref();
    this.open();
  }

  stop(): void {
    this.stopped = true;
    clearInterval(this.silenceTimer);
    for (const timer of [this.retryTimer, this.handoverTimer, this.syncTimer]) clearTimeout(timer);
    this.cache.distrust();
    this.trusted = false;
    keyCacheTrusted.set(0);
    this.primary?.cancel();
    this.candidate?.cancel();
    this.primary = this.candidate = undefined;
    keyCacheStreams.set(0);
  }

  heard(stream: ChangeStream, message: authV1.WatchIdentityChangesResponse): void {
    if (stream === this.primary) {
      this.retryMs = RETRY_MS;
      if (!this.trusted) {
        this.cache.trust();
        this.trusted = true;
        keyCacheTrusted.set(1);
      }
      if (message.heartbeat && this.syncToken !== 0 && message.synced === this.syncToken) this.handOver();
    } else if (stream === this.candidate && stream.registered && this.syncToken === 0 && this.primary) {
      this.syncToken = ++this.syncsSent;
      this.primary.sync(this.syncToken);
      this.syncTimer = setTimeout(() => this.giveUpCandidate('unanswered'), this.times.syncTimeoutMs);
    }
  }

  lost(stream: ChangeStream, reason: string): void {
    if (stream === this.candidate) this.giveUpCandidate('candidate_lost');
    else if (stream === this.primary) this.primaryLost(reason);
  }

  private open(): void {
    this.primary = new ChangeStream(this.auth, this.cache, this);
    keyCacheStreams.set(1);
    this.scheduleHandover();
  }

  private scheduleHandover(): void {
    clearTimeout(this.handoverTimer);
    this.handoverTimer = setTimeout(() => {
      if (this.stopped || !this.primary || this.candidate) return;
      this.candidate = new ChangeStream(this.auth, this.cache, this);
      keyCacheStreams.set(2);
    }, this.times.everyMs);
    this.handoverTimer.unref();
  }

  /** The primary has sent every change made before the candidate registered: the candidate carries the rest. */
  private handOver(): void {
    this.primary?.cancel();
    this.primary = this.candidate;
    this.endHandover('done');
  }

  private giveUpCandidate(outcome: 'unanswered' | 'candidate_lost' | 'candidate_silent'): void {
    this.candidate?.cancel();
    if (outcome === 'unanswered' && !this.toldUnanswered) {
      this.toldUnanswered = true;
      this.logger.info(
        'auth-service did not answer a sync on its change stream (an earlier version?): the key cache is emptied each time the stream is cut',
      );
    }
    this.endHandover(outcome);
  }

  private endHandover(outcome: string): void {
    clearTimeout(this.syncTimer);
    this.candidate = undefined;
    this.syncToken = 0;
    keyCacheHandovers.inc({ outcome });
    keyCacheStreams.set(this.primary ? 1 : 0);
    this.scheduleHandover();
  }

  private checkSilence(): void {
    const now = Date.now();
    if (this.candidate && now - this.candidate.lastHeard > SILENCE_MS) this.giveUpCandidate('candidate_silent');
    if (this.primary && now - this.primary.lastHeard > SILENCE_MS) {
      this.primary.cancel();
      this.primaryLost('change stream silent');
    }
  }

  /**
   * The stream the cache follows is gone: the cache is emptied. A candidate, registered or not,
   * becomes the stream followed, trusted from its next word as a new stream would be; else a new
   * stream is opened, ever less often while none can be.
   */
  private primaryLost(reason: string): void {
    this.primary = undefined;
    this.cache.distrust();
    keyCacheTrusted.set(0);
    if (this.trusted) keyCacheFlushes.inc();
    this.trusted = false;
    if (this.stopped) return;
    // Said once per outage: a stream that keeps failing to open retries quietly, ever less often.
    if (this.retryMs === RETRY_MS) this.logger.warn('key cache off until the change stream is back', { reason });
    if (this.candidate) {
      this.primary = this.candidate;
      this.endHandover('primary_lost');
      return;
    }
    keyCacheStreams.set(0);
    this.retryTimer = setTimeout(() => this.open(), this.retryMs);
    this.retryMs = Math.min(MAX_RETRY_MS, this.retryMs * 2);
  }
}
