import { createLogger, onShutdown } from '@gw/service-kit';
import { startAuthApp } from './auth-app';
import { loadConfig } from './config';

const config = loadConfig(process.env);
const logger = createLogger('auth-service', config.logLevel);
startAuthApp(config, logger).then(
  (app) => onShutdown(logger, app.stop),
  (err: unknown) => {
    logger.error('start failed', { err });
    process.exit(1);
  },
);
