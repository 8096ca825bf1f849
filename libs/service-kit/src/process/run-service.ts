import { createLogger, Logger, LogLevel } from './logger';
import { onShutdown } from './shutdown';

/** A started service that knows how to stop gracefully. */
export interface Stoppable {
  stop(): Promise<void>;
}

/**
 * What a service sends, once it serves, to a parent that started it with an IPC channel (the
 * launcher of `npm start`): the parent then knows its own child is up, not whatever else answers
 * on the child's ports.
 */
export const READY_MESSAGE = 'ready';

/**
 * What every app's main does: start with its config and a JSON logger, stop gracefully on
 * SIGTERM/SIGINT (or when the parent that holds its IPC channel is gone), and exit 1 with a
 * logged reason when the start fails.
 */
export function runService<C extends { logLevel: LogLevel }>(
  name: string,
  config: C,
  start: (config: C, logger: Logger) => Promise<Stoppable>,
): void {
  const logger = createLogger(name, config.logLevel);
  start(config, logger).then(
    (app) => {
      onShutdown(logger, () => app.stop());
      process.send?.(READY_MESSAGE);
    },
    (err: unknown) => {
      logger.error('start failed', { err });
      process.exit(1);
    },
  );
}
