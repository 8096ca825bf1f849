import { MAX_KEY_USES_PER_CALL } from '@gw/bounds';
import { Logger, PeriodicTask } from '@gw/service-kit';
import { AuthClient } from './auth-client';

const FLUSH_MS = 1000;

/**
 * "Last used" of the keys served from the key cache: the latest use of each key, sent to
 * auth-service once a second. A failed report is dropped with a warning: a last-used time is
 * no money and the next use reports again.
 */
export class KeyUseReporter {
  private pending = new Map<string, number>();
  private readonly loop: PeriodicTask;

  constructor(
    private readonly auth: AuthClient,
    private readonly logger: Logger,
  ) {
    // flush logs its own failure.
    this.loop = new PeriodicTask(() => this.flush(), {
      intervalMs: FLUSH_MS,
      failed: (err) => this.logger.warn('key uses not reported', { err }),
    });
    this.loop.start();
  }

  record(keyId: string): void {
    this.pending.set(keyId, Date.now());
  }

  async flush(): Promise<void> {
    if (this.pending.size === 0) return;
    const uses = [...this.pending].slice(0, MAX_KEY_USES_PER_CALL).map(([keyId, usedAtUnixMs]) => ({ keyId, usedAtUnixMs }));
    for (const use of uses) this.pending.delete(use.keyId);
    await this.auth.recordKeyUses(uses).catch((err: unknown) => this.logger.warn('key uses not reported', { err, keys: uses.length }));
  }

  /** Stops the timer, waits for a report on the wire, and reports what is left. */
  async stop(): Promise<void> {
    await this.loop.stop();
    await this.flush();
  }
}
