import { credentials } from '@grpc/grpc-js';
import { authV1, billingV1, quotaV1 } from '@gw/contracts';
import { CtlConfig } from './config';

/** The gRPC clients the commands use. */
export interface CtlClients {
  auth: authV1.AuthClient;
  billing: billingV1.BillingClient;
  quota: quotaV1.QuotaClient;
  timeoutMs: number;
  close(): void;
}

/** Connects to the services named in the configuration. */
export function connectClients(config: CtlConfig): CtlClients {
  const insecure = credentials.createInsecure();
  const auth = new authV1.AuthClient(config.authAddr, insecure);
  const billing = new billingV1.BillingClient(config.billingAddr, insecure);
  const quota = new quotaV1.QuotaClient(config.quotaAddr, insecure);
  return {
    auth,
    billing,
    quota,
    timeoutMs: config.timeoutMs,
    close: () => [auth, billing, quota].forEach((c) => c.close()),
  };
}
