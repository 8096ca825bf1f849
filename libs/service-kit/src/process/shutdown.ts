import { stopTracing } from '@gw/telemetry';
import { Logger, LogFields } from './logger';

/**
 * Runs `stop` once on the first SIGTERM or SIGINT, sends the spans still buffered, then exits 0
 * (1 if stopping failed).
 * A second signal while stopping exits at once.
 * A process started with an IPC channel (by the launcher of `npm start`) stops the same way when
 * the channel closes: its parent is gone, even killed with SIGKILL, and nobody else would stop it.
 */
export function onShutdown(logger: Logger, stop: () => Promise<void>): void {
  let stopping = false;
  const begin = (why: LogFields) => {
    stopping = true;
    logger.info('shutting down', why);
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
  const handle = (signal: NodeJS.Signals) => {
    if (stopping) {
      logger.warn('second signal, exiting now', { signal });
      process.exit(1);
    }
    begin({ signal });
  };
  process.on('SIGTERM', handle);
  process.on('SIGINT', handle);
  if (process.send) {
    process.once('disconnect', () => {
      // The parent read our output through pipes that are now closed: a write would fail with
      // EPIPE and end the process in the middle of its drain.
      for (const stream of [process.stdout, process.stderr]) stream.on('error', () => undefined);
      if (!stopping) begin({ reason: 'parent process gone' });
    });
  }
}
