import { join } from 'node:path';
import { CTL_SETTINGS } from '@gw/app-settings';
import { Env, GrpcSecurity, readGrpcSecurity, readSettings } from '@gw/service-kit';

/** Where the operator CLI finds the services (the same variables and defaults as npm start). */
export interface CtlConfig {
  authAddr: string;
  quotaAddr: string;
  billingAddr: string;
  consoleAddr: string;
  /** The operator's certificate (`ctl` identity): `$DATA_DIR/tls/ctl` after `npm start`, or TLS_DIR. */
  security: GrpcSecurity;
  timeoutMs: number;
  /** Where `tls init` and `tls issue` keep the development CA and certificates. */
  tlsRoot: string;
}

/** Reads the configuration through CTL_SETTINGS and readGrpcSecurity; the only reader of the environment. */
export function loadConfig(env: Env): Readonly<CtlConfig> {
  const s = readSettings(env, CTL_SETTINGS);
  return Object.freeze({
    authAddr: s.AUTH_ADDR,
    quotaAddr: s.QUOTA_ADDR,
    billingAddr: s.BILLING_ADDR,
    consoleAddr: s.CONSOLE_ADDR,
    security: readGrpcSecurity(env, 'ctl'),
    timeoutMs: s.CTL_TIMEOUT_MS,
    tlsRoot: join(s.DATA_DIR, 'tls'),
  });
}
