import { authV1, billingV1, consoleV1, quotaV1 } from '@gw/contracts';
import { grpcClient } from '@gw/service-kit';
import { CtlConfig } from './config';

/** The gRPC clients the commands use. */
export interface CtlClients {
  auth: authV1.AuthClient;
  billing: billingV1.BillingClient;
  quota: quotaV1.QuotaClient;
  console: consoleV1.ConsoleClient;
  timeoutMs: number;
  close(): void;
}

/** Connects to the services named in the configuration. */
export function connectClients(config: CtlConfig): CtlClients {
  const auth = grpcClient(authV1.AuthClient, config.authAddr, config.security, 'auth-service');
  const billing = grpcClient(billingV1.BillingClient, config.billingAddr, config.security, 'billing-service');
  const quota = grpcClient(quotaV1.QuotaClient, config.quotaAddr, config.security, 'quota-service');
  const consoleClient = grpcClient(consoleV1.ConsoleClient, config.consoleAddr, config.security, 'console');
  return {
    auth,
    billing,
    quota,
    console: consoleClient,
    timeoutMs: config.timeoutMs,
    close: () => [auth, billing, quota, consoleClient].forEach((c) => c.close()),
  };
}
