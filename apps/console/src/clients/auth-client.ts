import { auditV1, authV1 } from '@gw/contracts';
import { GrpcSecurity, grpcClient, unaryCall } from '@gw/service-kit';

/** The console's calls to auth-service, each with a deadline; keys only of the account asked for. */
export class AuthClient {
  private readonly client: authV1.AuthClient;

  constructor(
    address: string,
    security: GrpcSecurity,
    private readonly timeoutMs: number,
  ) {
    this.client = grpcClient(authV1.AuthClient, address, security, 'auth-service');
  }

  async getAccount(accountId: string): Promise<authV1.Account> {
    const { account } = await unaryCall(this.client.getAccount.bind(this.client), { accountId }, this.timeoutMs);
    if (!account) throw new Error('auth-service answered GetAccount without an account');
    return account;
  }

  async listKeys(accountId: string): Promise<authV1.KeyInfo[]> {
    return (await unaryCall(this.client.listKeys.bind(this.client), { accountId }, this.timeoutMs)).keys;
  }

  /** The new key's value, shown once, and what the list will show of it; the audit trail names `holder` (their email) as who created it. */
  async createKey(accountId: string, name: string, holder: string): Promise<{ key: string; info?: authV1.KeyInfo }> {
    return unaryCall(this.client.createKey.bind(this.client), { accountId, name, note: { holder, reason: '' } }, this.timeoutMs);
  }

  /** Revokes a key of `accountId` only (NOT_FOUND for another account's); the audit trail names `holder`. */
  async revokeKey(accountId: string, keyId: string, holder: string): Promise<void> {
    await unaryCall(this.client.revokeKey.bind(this.client), { keyId, accountId, note: { holder, reason: '' } }, this.timeoutMs);
  }

  /** The account's newest entries of auth-service's audit trail, newest first. */
  async auditEntries(accountId: string, limit: number): Promise<auditV1.AuditEntry[]> {
    return (await unaryCall(this.client.listAuditEntries.bind(this.client), { accountId, limit }, this.timeoutMs)).entries;
  }

  /** The models the account may use: the public ones, then those granted it. */
  async listModels(accountId: string): Promise<authV1.Model[]> {
    return (await unaryCall(this.client.listModels.bind(this.client), { accountId }, this.timeoutMs)).models;
  }

  close(): void {
    this.client.close();
  }
}
