import { GRPC_SECURITY_SETTINGS, SettingsTable } from '@gw/service-kit';
import { AUTH_SETTINGS } from './auth-service';
import { BILLING_SETTINGS } from './billing-service';
import { CONSOLE_SETTINGS } from './console';
import { CTL_SETTINGS } from './ctl';
import { EDGE_SETTINGS } from './edge';
import { NOTIFIER_SETTINGS } from './notifier';
import { PROVIDER_SIM_SETTINGS } from './provider-sim';
import { QUOTA_SETTINGS } from './quota-service';

/**
 * The settings tables each app's loadConfig reads: its own, and gRPC's transport security
 * (readGrpcSecurity) for those that speak gRPC. Each app's config-variables spec holds its
 * loadConfig to exactly these variables.
 */
export const APP_SETTINGS = {
  edge: [EDGE_SETTINGS, GRPC_SECURITY_SETTINGS],
  'auth-service': [AUTH_SETTINGS, GRPC_SECURITY_SETTINGS],
  'quota-service': [QUOTA_SETTINGS, GRPC_SECURITY_SETTINGS],
  'billing-service': [BILLING_SETTINGS, GRPC_SECURITY_SETTINGS],
  'provider-sim': [PROVIDER_SIM_SETTINGS],
  console: [CONSOLE_SETTINGS, GRPC_SECURITY_SETTINGS],
  notifier: [NOTIFIER_SETTINGS, GRPC_SECURITY_SETTINGS],
  ctl: [CTL_SETTINGS, GRPC_SECURITY_SETTINGS],
} as const satisfies Record<string, readonly SettingsTable[]>;

/** An app with a settings table: a folder of apps/. */
export type AppName = keyof typeof APP_SETTINGS;
