import { defineSettings, setting } from '@gw/service-kit';
import { AUTH_ADDR, BILLING_ADDR, CONSOLE_ADDR, DATA_DIR, QUOTA_ADDR } from './common';

/** What ctl reads (apps/ctl/src/config.ts), besides GRPC_SECURITY_SETTINGS (its certificate is the `ctl` identity's). */
export const CTL_SETTINGS = defineSettings({
  AUTH_ADDR,
  QUOTA_ADDR,
  BILLING_ADDR,
  CONSOLE_ADDR,
  CTL_TIMEOUT_MS: setting.int(5000, 'the deadline of each call'),
  DATA_DIR,
});
