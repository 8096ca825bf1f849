import { authV1, billingV1, consoleV1, quotaV1 } from '@gw/contracts';
import { clientChain, RpcClient, rpcClient } from '@gw/service-kit';
import { CtlConfig } from './config';

/** The gRPC clients the commands use: each call's deadline is timeoutMs unless the call gives its own. */
export interface CtlClients {
  auth: RpcClient<authV1.AuthClient, authV1.AuthService>;
  billing: RpcClient<billingV1.BillingClient, billingV1.BillingService>;
  quota: RpcClient<quotaV1.QuotaClient, quotaV1.QuotaService>;
  console: RpcClient<consoleV1.ConsoleClient, consoleV1.ConsoleService>;
  timeoutMs: number;
  close(): void;
}

/** Connects to the services named in the configuration. */
export function connectClients(config: CtlConfig): CtlClients {
  const settings = { timeoutMs: config.timeoutMs, chain: clientChain() };
  const auth = rpcClient(authV1.AuthClient, config.authAddr, config.security, 'auth-service', settings);
  const billing = rpcClient(billingV1.BillingClient, config.billingAddr, config.security, 'billing-service', settings);
  const quota = rpcClient(quotaV1.QuotaClient, config.quotaAddr, config.security, 'quota-service', settings);
  const consoleClient = rpcClient(consoleV1.ConsoleClient, config.consoleAddr, config.security, 'console', settings);
  return {
    auth,
    billing,
    quota,
    console: consoleClient,
    timeoutMs: config.timeoutMs,
    close: () => [auth, billing, quota, consoleClient].forEach((c) => c.close()),
  };
}
