import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { status } from '@grpc/grpc-js';
import { authV1, billingV1 } from '@gw/contracts';
import { clientChain, GrpcSecurity, rpcClient } from '@gw/service-kit';

const DEMO_BALANCE_MICRO_LYD = 10_000_000;
const TIMEOUT_MS = 5000;

/** The demo account, and its key when it was made by this start: shown this once, never again. */
export interface DemoAccount {
  accountId: string;
  key?: string;
}

/**
 * On a store with no demo account yet, creates one with a balance and a key. The account id is
 * remembered under the data folder (never the key); when that account still exists nothing is made.
 */
export async function ensureDemoAccount(
  dataDir: string,
  authAddr: string,
  billingAddr: string,
  security: GrpcSecurity,
): Promise<DemoAccount> {
  const marker = join(dataDir, 'demo-account.json');
  const settings = { timeoutMs: TIMEOUT_MS, chain: clientChain(), waitForReady: true };
  const auth = rpcClient(authV1.AuthClient, authAddr, security, 'auth-service', settings);
  const billing = rpcClient(billingV1.BillingClient, billingAddr, security, 'billing-service', settings);
  try {
    if (existsSync(marker)) {
      const { accountId } = JSON.parse(readFileSync(marker, 'utf8')) as { accountId: string };
      const found = await auth.getAccount({ accountId }).then(
        () => true,
        (err: { code?: number }) => {
          if (err.code === status.NOT_FOUND) return false;
          throw err;
        },
      );
      if (found) return { accountId };
    }
    const { account } = await auth.createAccount({ name: 'Demo' });
    const accountId = account?.accountId ?? '';
    await billing.addBalance({ accountId, amountMicroLyd: DEMO_BALANCE_MICRO_LYD });
    const { key } = await auth.createKey({ accountId, name: 'demo' });
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(marker, JSON.stringify({ accountId }));
    return { accountId, key };
  } finally {
    auth.close();
    billing.close();
  }
}
