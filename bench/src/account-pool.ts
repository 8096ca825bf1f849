import { authV1, billingV1 } from '@gw/contracts';
import { clientChain, GrpcSecurity, rpcClient } from '@gw/service-kit';

/** Requests one account may send per clock minute here: under the 30 of the limit, with room. */
const DEFAULT_PER_MINUTE = 25;

/**
 * Enough funded accounts that the per-account limits (30 a minute, 3 at a time) never cap the
 * load: each key is handed out round-robin, at most 25 times in a clock minute.
 */
export class AccountPool {
  private next = 0;
  private minute = -1;
  private used: number[] = [];

  private constructor(
    private readonly keys: string[],
    private readonly perMinute: number,
  ) {}

  /**
   * Creates `size` accounts with 1,000 LYD each, over gRPC, 32 at a time; each key is handed out
   * at most `perMinute` times a clock minute (raise it with the stack's RATE_LIMIT_PER_MINUTE).
   */
  static async create(
    size: number,
    authAddr: string,
    billingAddr: string,
    security: GrpcSecurity,
    perMinute = DEFAULT_PER_MINUTE,
  ): Promise<AccountPool> {
    const settings = { timeoutMs: 10_000, chain: clientChain() };
    const auth = rpcClient(authV1.AuthClient, authAddr, security, 'auth-service', settings);
    const billing = rpcClient(billingV1.BillingClient, billingAddr, security, 'billing-service', settings);
    const keys: string[] = [];
    try {
      for (let start = 0; start < size; start += 32) {
        const batch = Array.from({ length: Math.min(32, size - start) }, async () => {
          const { account } = await auth.createAccount({ name: 'bench' });
          const accountId = account?.accountId ?? '';
          await billing.addBalance({ accountId, amountMicroLyd: 1_000_000_000 });
          return (await auth.createKey({ accountId, name: 'bench' })).key;
        });
        keys.push(...(await Promise.all(batch)));
      }
    } finally {
      auth.close();
      billing.close();
    }
    return new AccountPool(keys, perMinute);
  }

  /** Every key, in the order they are handed out. */
  all(): readonly string[] {
    return this.keys;
  }

  /** A key that has room in the current minute; undefined when every one is used up. */
  take(): string | undefined {
    const minute = Math.floor(Date.now() / 60_000);
    if (minute !== this.minute) {
      this.minute = minute;
      this.used = new Array<number>(this.keys.length).fill(0);
    }
    for (let tried = 0; tried < this.keys.length; tried++) {
      const i = this.next;
      this.next = (this.next + 1) % this.keys.length;
      if (this.used[i] < this.perMinute) {
        this.used[i]++;
        return this.keys[i];
      }
    }
    return undefined;
  }
}
