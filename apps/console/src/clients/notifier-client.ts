import { notifierV1 } from '@gw/contracts';
import { clientChain, GrpcSecurity, RpcClient, rpcClient } from '@gw/service-kit';

/** The console's call to the notifier, with a deadline: the mails of the signed-in holder's account. */
export class NotifierClient {
  private readonly rpc: RpcClient<notifierV1.NotifierClient, notifierV1.NotifierService>;

  constructor(address: string, security: GrpcSecurity, timeoutMs: number) {
    this.rpc = rpcClient(notifierV1.NotifierClient, address, security, 'notifier', { timeoutMs, chain: clientChain() });
  }

  /** The account's newest `limit` mails, kept or sent, newest first. */
  async mails(accountId: string, limit: number): Promise<notifierV1.Mail[]> {
    return (await this.rpc.listMails({ accountId, limit })).mails;
  }

  close(): void {
    this.rpc.close();
  }
}
