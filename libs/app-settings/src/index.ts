/** Each app's settings table: every environment variable its config.ts reads, with its default, parser and meaning. */
export { APP_SETTINGS } from './apps';
export type { AppName } from './apps';
export { AUTH_SETTINGS } from './auth-service';
export { BILLING_SETTINGS } from './billing-service';
export { CONSOLE_SETTINGS } from './console';
export { CTL_SETTINGS } from './ctl';
export { EDGE_SETTINGS } from './edge';
export { NOTIFIER_SETTINGS } from './notifier';
export { PROVIDER_SIM_SETTINGS } from './provider-sim';
export { QUOTA_SETTINGS } from './quota-service';
