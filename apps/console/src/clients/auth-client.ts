import { auditV1, authV1 } from '@gw/contracts';
import { clientChain, GrpcSecurity, RpcClient, rpcClient } from '@gw/service-kit';

/** The console's calls to auth-service, each with a deadline; keys only of the account asked for. */
export class AuthClient {
  private readonly rpc: RpcClient<authV1.AuthClient, authV1.AuthService>;

  constructor(address: string, security: GrpcSecurity, timeoutMs: number) {
    this.rpc = rpcClient(authV1.AuthClient, address, security, 'auth-service', { timeoutMs, chain: clientChain() });
  }

  async getAccount(accountId: string): Promise<authV1.Account> {
    const { account } = await this.rpc.getAccount({ accountId });
    if (!account) throw new Error('auth-service answered GetAccount without an account');
    return account;
  }

  async listKeys(accountId: string): Promise<authV1.KeyInfo[]> {
    return (await this.rpc.listKeys({ accountId })).keys;
  }

  /** The new key's value, shown once, and what the list will show of it; the audit trail names `holder` (their email) as who created it. */
  async createKey(accountId: string, name: string, holder: string): Promise<{ key: string; info?: authV1.KeyInfo }> {
    return this.rpc.createKey({ accountId, name, note: { holder, reason: '' } });
  }

  /** Revokes a key of `accountId` only (NOT_FOUND for another account's); the audit trail names `holder`. */
  async revokeKey(accountId: string, keyId: string, holder: string): Promise<void> {
    await this.rpc.revokeKey({ keyId, accountId, note: { holder, reason: '' } });
  }

  /** The account's newest entries of auth-service's audit trail, newest first. */
  async auditEntries(accountId: string, limit: number): Promise<auditV1.AuditEntry[]> {
    return (await this.rpc.listAuditEntries({ accountId, limit })).entries;
  }

  /** The models the account may use: the public ones, then those granted it. */
  async listModels(accountId: string): Promise<authV1.Model[]> {
    return (await this.rpc.listModels({ accountId })).models;
  }

  close(): void {
    this.rpc.close();
  }
}
