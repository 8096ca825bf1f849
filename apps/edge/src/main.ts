import { createLogger, onShutdown } from '@gw/service-kit';
import { loadConfig } from './config';
import { startEdgeApp } from './edge-app';

const config = loadConfig(process.env);
const logger = createLogger('edge', config.logLevel);
startEdgeApp(config, logger).then(
  (app) => onShutdown(logger, app.stop),
  (err: unknown) => {
    logger.error('start failed', { err });
    process.exit(1);
  },
);
