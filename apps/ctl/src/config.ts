import { Env, readInt, readString } from '@gw/service-kit';

/** Where the operator CLI finds the services (the same variables and defaults as npm start). */
export interface CtlConfig {
  authAddr: string;
  quotaAddr: string;
  billingAddr: string;
  timeoutMs: number;
}

/** Reads the configuration; the only reader of the environment. */
export function loadConfig(env: Env): Readonly<CtlConfig> {
  return Object.freeze({
    authAddr: readString(env, 'AUTH_ADDR', '127.0.0.1:50051'),
    quotaAddr: readString(env, 'QUOTA_ADDR', '127.0.0.1:50052'),
    billingAddr: readString(env, 'BILLING_ADDR', '127.0.0.1:50053'),
    timeoutMs: readInt(env, 'CTL_TIMEOUT_MS', 5000),
  });
}
