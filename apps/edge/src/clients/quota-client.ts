import { quotaV1 } from '@gw/contracts';
import {
  CallStreamClient,
  carriedCalls,
  clientChain,
  ClientSettings,
  GrpcSecurity,
  oneofWrapping,
  RpcCalls,
  RpcClient,
  rpcClient,
  UnaryKeys,
} from '@gw/service-kit';
import { CALL_STREAMS } from './call-streams';
import { timeCall } from './time-call';

const CARRIED = ['admit', 'countRequest', 'finishRequest'] as const;

/**
 * The edge's calls to quota-service, each with a deadline and timed (its chain). The per-request
 * ones (admission, count, finish) travel on EdgeCalls streams
 * (CallStreamClient); the rest are unary calls.
 */
export class QuotaClient {
  private readonly rpc: RpcClient<quotaV1.QuotaClient, quotaV1.QuotaService>;
  private readonly streams: CallStreamClient<quotaV1.EdgeCall['request'], quotaV1.EdgeAnswer['response']>;
  private readonly carried: Pick<RpcCalls<quotaV1.QuotaService>, (typeof CARRIED)[number]>;
  private readonly settings: ClientSettings;

  constructor(address: string, security: GrpcSecurity, timeoutMs: number) {
    const settings = { timeoutMs, chain: clientChain([timeCall]) };
    this.settings = settings;
    this.rpc = rpcClient(quotaV1.QuotaClient, address, security, 'quota-service', settings);
    this.streams = new CallStreamClient<quotaV1.EdgeCall['request'], quotaV1.EdgeAnswer['response']>(
      () => this.rpc.streams.edgeCalls(),
      CALL_STREAMS,
    );
    this.carried = carriedCalls(quotaV1.QuotaService, CARRIED, this.streams, oneofWrapping(), settings);
  }

  /** Counts, holds or reserves, and places a request in one step (quota.v1 Admit). */
  admit(request: quotaV1.AdmitRequest): Promise<quotaV1.AdmitResponse> {
    return this.carried.admit(request);
  }

  /** Counts a request that will not be admitted (its body was refused). */
  countRequest(accountId: string): Promise<quotaV1.CountRequestResponse> {
    return this.carried.countRequest({ accountId });
  }

  /** The one end-of-request call: frees the place, counts the tokens, and queues the bill durably. */
  finishRequest(request: quotaV1.FinishRequestRequest): Promise<quotaV1.FinishRequestResponse> {
    return this.carried.finishRequest(request);
  }

  /** Renews the leases of running requests (see LeaseKeeper). */
  renewLeases(leases: quotaV1.Lease[]): Promise<quotaV1.RenewLeasesResponse> {
    return this.rpc.renewLeases({ leases });
  }

  getUsage(accountId: string): Promise<quotaV1.GetUsageResponse> {
    return this.rpc.getUsage({ accountId });
  }

  /** Further quota.v1 methods carried on the same streams, through the same chain. */
  carry<K extends UnaryKeys<quotaV1.QuotaService>>(keys: readonly K[]): Pick<RpcCalls<quotaV1.QuotaService>, K> {
    return carriedCalls(quotaV1.QuotaService, keys, this.streams, oneofWrapping(), this.settings);
  }

  close(): void {
    this.streams.close();
    this.rpc.close();
  }
}
