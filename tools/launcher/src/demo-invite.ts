import { consoleV1 } from '@gw/contracts';
import { GrpcSecurity, grpcClient, unaryCall } from '@gw/service-kit';

/** The demo account's holder signs in to the console with this email. */
export const DEMO_HOLDER_EMAIL = 'demo@example.com';
const TIMEOUT_MS = 5000;

/** A fresh one-time link (30 minutes) where the demo account's holder sets a password, as `ctl console invite` makes one. */
export async function inviteDemoHolder(
  consoleAddr: string,
  accountId: string,
  security: GrpcSecurity,
): Promise<consoleV1.CreateInviteResponse> {
  const client = grpcClient(consoleV1.ConsoleClient, consoleAddr, security, 'console');
  try {
    return await unaryCall(client.createInvite.bind(client), { accountId, email: DEMO_HOLDER_EMAIL }, TIMEOUT_MS);
  } finally {
    client.close();
  }
}
