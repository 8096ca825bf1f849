import { authV1, billingV1 } from '@gw/contracts';
import { clientChain, rpcClient } from '@gw/service-kit';
import { RunningStack } from './start-stack';

/** One account made for a test: its id and one API key. */
export interface FundedAccount {
  accountId: string;
  key: string;
}

const DEADLINE_MS = 10_000;
/** Accounts made at once: enough to be quick, few enough not to queue past the deadline. */
const AT_ONCE = 32;

/**
 * Creates `count` accounts, each with `balanceMicroLyd` and one key, as the operator does
 * (auth-service CreateAccount and CreateKey, billing-service AddBalance) but over gRPC with the
 * ctl certificate, AT_ONCE at a time: a thousand take seconds, where `ctl` would take minutes.
 */
export async function createFundedAccounts(stack: RunningStack, count: number, balanceMicroLyd: number): Promise<FundedAccount[]> {
  const security = stack.grpcSecurity('ctl');
  const settings = { timeoutMs: DEADLINE_MS, chain: clientChain() };
  const auth = rpcClient(authV1.AuthClient, stack.env.AUTH_ADDR, security, 'auth-service', settings);
  const billing = rpcClient(billingV1.BillingClient, stack.env.BILLING_ADDR, security, 'billing-service', settings);
  const accounts: FundedAccount[] = [];
  try {
    for (let start = 0; start < count; start += AT_ONCE) {
      const batch = Array.from({ length: Math.min(AT_ONCE, count - start) }, async (): Promise<FundedAccount> => {
        const { account } = await auth.createAccount({ name: 'burst' });
        const accountId = account?.accountId ?? '';
        await billing.addBalance({ accountId, amountMicroLyd: balanceMicroLyd });
        const { key } = await auth.createKey({ accountId, name: 'burst' });
        return { accountId, key };
      });
      accounts.push(...(await Promise.all(batch)));
    }
  } finally {
    auth.close();
    billing.close();
  }
  return accounts;
}
