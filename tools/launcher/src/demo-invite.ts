import { consoleV1 } from '@gw/contracts';
import { clientChain, GrpcSecurity, rpcClient } from '@gw/service-kit';

/** The demo account's holder signs in to the console with this email. */
export const DEMO_HOLDER_EMAIL = 'demo@example.com';
const TIMEOUT_MS = 5000;

/** A fresh one-time link (30 minutes) where the demo account's holder sets a password, as `ctl console invite` makes one. */
export async function inviteDemoHolder(
  consoleAddr: string,
  accountId: string,
  security: GrpcSecurity,
): Promise<consoleV1.CreateInviteResponse> {
  const client = rpcClient(consoleV1.ConsoleClient, consoleAddr, security, 'console', {
    timeoutMs: TIMEOUT_MS,
    chain: clientChain(),
    waitForReady: true,
  });
  try {
    return await client.createInvite({ accountId, email: DEMO_HOLDER_EMAIL });
  } finally {
    client.close();
  }
}
