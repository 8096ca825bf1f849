import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { status } from '@grpc/grpc-js';
import { authV1, billingV1 } from '@gw/contracts';
import { GrpcSecurity, grpcClient, unaryCall } from '@gw/service-kit';

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
  const auth = grpcClient(authV1.AuthClient, authAddr, security, 'auth-service');
  const billing = grpcClient(billingV1.BillingClient, billingAddr, security, 'billing-service');
  try {
    if (existsSync(marker)) {
      const { accountId } = JSON.parse(readFileSync(marker, 'utf8')) as { accountId: string };
      const found = await unaryCall(auth.getAccount.bind(auth), { accountId }, TIMEOUT_MS).then(
        () => true,
        (err: { code?: number }) => {
          if (err.code === status.NOT_FOUND) return false;
          throw err;
        },
      );
      if (found) return { accountId };
    }
    const { account } = await unaryCall(auth.createAccount.bind(auth), { name: 'Demo' }, TIMEOUT_MS);
    const accountId = account?.accountId ?? '';
    await unaryCall(billing.addBalance.bind(billing), { accountId, amountMicroLyd: DEMO_BALANCE_MICRO_LYD }, TIMEOUT_MS);
    const { key } = await unaryCall(auth.createKey.bind(auth), { accountId, name: 'demo' }, TIMEOUT_MS);
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(marker, JSON.stringify({ accountId }));
    return { accountId, key };
  } finally {
    auth.close();
    billing.close();
  }
}
