import { MAX_KEY_USES_PER_CALL } from '@gw/bounds';
import { Logger } from '@gw/service-kit';
import { AuthClient } from './auth-client';

const FLUSH_MS = 1000;

/**
 * "Last used" of the keys served from the key cache: the latest use of each key, sent to
 * auth-service once a second. A failed report is dropped with a warning: a last-used time is
 * no money and the next use reports again.
 */
export class KeyUseReporter {
  private pending = new Map<string, number>();
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly auth: AuthClient,
    private readonly logger: Logger,
  ) {
    this.timer = setInterval(() => void this.flush(), FLUSH_MS);
    this.timer.unref();
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

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }
}
