import { authV1 } from '@gw/contracts';
import { GrpcSecurity, grpcClient, unaryCall } from '@gw/service-kit';

/** The console's calls to auth-service, each with a deadline; keys only of the account asked for. */
export class AuthClient {
  private readonly client: authV1.AuthClient;

  constructor(address: string, security: GrpcSecurity, private readonly timeoutMs: number) {
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

  /** The new key's value, shown once, and what the list will show of it. */
  async createKey(accountId: string, name: string): Promise<{ key: string; info?: authV1.KeyInfo }> {
    return unaryCall(this.client.createKey.bind(this.client), { accountId, name }, this.timeoutMs);
  }

  /** Revokes a key of `accountId` only (NOT_FOUND for another account's). */
  async revokeKey(accountId: string, keyId: string): Promise<void> {
    await unaryCall(this.client.revokeKey.bind(this.client), { keyId, accountId }, this.timeoutMs);
  }

  /** The models the account may use: the public ones, then those granted it. */
  async listModels(accountId: string): Promise<authV1.Model[]> {
    return (await unaryCall(this.client.listModels.bind(this.client), { accountId }, this.timeoutMs)).models;
  }

  close(): void {
    this.client.close();
  }
}
