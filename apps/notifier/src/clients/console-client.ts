import { consoleV1 } from '@gw/contracts';
import { clientChain, fromHolderEventKindWire, GrpcSecurity, HolderEventKindName, RpcClient, rpcClient } from '@gw/service-kit';
import { Recipient, RecipientDirectory } from '../domain/event-taker';

/** The notifier's call to the console, with a deadline: whom an account's mail goes to. */
export class ConsoleClient implements RecipientDirectory {
  private readonly rpc: RpcClient<consoleV1.ConsoleClient, consoleV1.ConsoleService>;

  constructor(address: string, security: GrpcSecurity, timeoutMs: number) {
    this.rpc = rpcClient(consoleV1.ConsoleClient, address, security, 'console', { timeoutMs, chain: clientChain() });
  }

  async recipients(accountId: string): Promise<Recipient[]> {
    const { recipients } = await this.rpc.listMailRecipients({ accountId });
    return recipients.map((r) => ({
      email: r.email,
      switchedOff: r.switchedOff.map(fromHolderEventKindWire).filter((kind): kind is HolderEventKindName => kind !== undefined),
    }));
  }

  close(): void {
    this.rpc.close();
  }
}
