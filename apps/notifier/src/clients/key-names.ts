import { authV1 } from '@gw/contracts';
import { RpcClient } from '@gw/service-kit';
import { KeyName, KeyNames } from '../domain/event-taker';

/** The notifier's call to auth-service that names a key by its id (auth.v1 ListKeys, with the client's deadline). */
export class AuthKeyNames implements KeyNames {
  constructor(private readonly auth: RpcClient<authV1.AuthClient, authV1.AuthService>) {}

  async nameOf(accountId: string, keyId: string): Promise<KeyName | undefined> {
    const { keys } = await this.auth.listKeys({ accountId });
    const key = keys.find((k) => k.id === keyId);
    return key && { name: key.name, prefix: key.prefix };
  }
}
