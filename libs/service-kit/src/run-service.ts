import { createLogger, Logger, LogLevel } from './logger';
import { onShutdown } from './shutdown';

/** A started service that knows how to stop gracefully. */
export interface Stoppable {
  stop(): Promise<void>;
}

/**
 * What every app's main does: start with its config and a JSON logger, stop gracefully on
 * SIGTERM/SIGINT, and exit 1 with a logged reason when the start fails.
 */
export function runService<C extends { logLevel: LogLevel }>(
  name: string,
  config: C,
  start: (config: C, logger: Logger) => Promise<Stoppable>,
): void {
  const logger = createLogger(name, config.logLevel);
  start(config, logger).then(
    (app) => onShutdown(logger, () => app.stop()),
    (err: unknown) => {
      logger.error('start failed', { err });
      process.exit(1);
    },
  );
}
