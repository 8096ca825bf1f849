import { Logger, PeriodicTask } from '@gw/service-kit';
import { IdentityChange, IdentityChangeHub } from './identity-change-hub';

/** How a change reaches the edges of every replica of auth-service. */
export interface IdentityFeed {
  /** Resolves once every connected edge of every replica has applied the change, or been cut off. */
  publish(change: IdentityChange): Promise<void>;
  stop(): Promise<void>;
}

/** How often the edges hear from their replica; an edge distrusts its cache after 3 s of silence. */
export const HEARTBEAT_MS = 1000;

/**
 * The feed of a single replica (the embedded database): a change goes straight to this replica's
 * edges, and the heartbeat never stops. A change is sent to the edges as it is published, so a
 * heartbeat answers every sync asked before it.
 */
export class LocalIdentityFeed implements IdentityFeed {
  private readonly heartbeat: PeriodicTask;

  constructor(
    private readonly hub: IdentityChangeHub,
    logger: Logger,
  ) {
    this.heartbeat = new PeriodicTask(() => hub.heartbeat(hub.takeSyncs()), {
      intervalMs: HEARTBEAT_MS,
      failed: (err) => logger.warn('heartbeat not sent', { err }),
    });
    this.heartbeat.start();
  }

  publish(change: IdentityChange): Promise<void> {
    return this.hub.deliver(change);
  }

  stop(): Promise<void> {
    return this.heartbeat.stop();
  }
}
