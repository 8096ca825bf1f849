import { join } from 'node:path';
import { Env, GrpcSecurity, readGrpcSecurity, readInt, readString } from '@gw/service-kit';

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

/** Reads the configuration; the only reader of the environment. */
export function loadConfig(env: Env): Readonly<CtlConfig> {
  return Object.freeze({
    authAddr: readString(env, 'AUTH_ADDR', '127.0.0.1:50051'),
    quotaAddr: readString(env, 'QUOTA_ADDR', '127.0.0.1:50052'),
    billingAddr: readString(env, 'BILLING_ADDR', '127.0.0.1:50053'),
    consoleAddr: readString(env, 'CONSOLE_ADDR', '127.0.0.1:50054'),
    security: readGrpcSecurity(env, 'ctl'),
    timeoutMs: readInt(env, 'CTL_TIMEOUT_MS', 5000),
    tlsRoot: join(readString(env, 'DATA_DIR', '.data'), 'tls'),
  });
}
