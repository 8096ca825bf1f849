import { defineSettings, setting } from '@gw/service-kit';
import { BIND_HOST, LOG_LEVEL, SHUTDOWN_GRACE_MS } from './common';

/** What provider-sim reads (apps/provider-sim/src/config.ts). */
export const PROVIDER_SIM_SETTINGS = defineSettings({
  BIND_HOST,
  PROVIDER_SIM_PORT: setting.int(8090, 'the simulated provider API'),
  PROVIDER_SIM_API_KEY: setting.optional('when set, chat requests must carry it as their Bearer key; unset: any key is taken'),
  SHUTDOWN_GRACE_MS,
  LOG_LEVEL,
});
