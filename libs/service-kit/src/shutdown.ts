import { stopTracing } from '@gw/telemetry';
import { Logger } from './logger';

/**
 * Runs `stop` once on the first SIGTERM or SIGINT, sends the spans still buffered, then exits 0
 * (1 if stopping failed).
 * A second signal while stopping exits at once.
 */
export function onShutdown(logger: Logger, stop: () => Promise<void>): void {
  let stopping = false;
  const handle = (signal: NodeJS.Signals) => {
    if (stopping) {
      logger.warn('second signal, exiting now', { signal });
      process.exit(1);
    }
    stopping = true;
    logger.info('shutting down', { signal });
    stop()
      .then(stopTracing)
      .then(
        () => {
          logger.info('stopped');
          process.exit(0);
        },
        (err: unknown) => {
          logger.error('shutdown failed', { err });
          process.exit(1);
        },
      );
  };
  process.on('SIGTERM', handle);
  process.on('SIGINT', handle);
}
