import { quotaV1 } from '@gw/contracts';
import { CallStreamClient, carriedCalls, clientChain, GrpcSecurity, oneofWrapping, RpcCalls, RpcClient, rpcClient } from '@gw/service-kit';
import { CALL_STREAMS } from './call-streams';
import { timeCall } from './time-call';

const CARRIED = ['admit', 'countRequest', 'acquirePlace', 'reserveFree', 'finishRequest'] as const;

/**
 * The edge's calls to quota-service, each with a deadline and timed (its chain). The per-request
 * ones (admission, count, place, free reservation, finish) travel on EdgeCalls streams
 * (CallStreamClient); the rest are unary calls.
 */
export class QuotaClient {
  private readonly rpc: RpcClient<quotaV1.QuotaClient, quotaV1.QuotaService>;
  private readonly streams: CallStreamClient<quotaV1.EdgeCall['request'], quotaV1.EdgeAnswer['response']>;
  private readonly carried: Pick<RpcCalls<quotaV1.QuotaService>, (typeof CARRIED)[number]>;

  constructor(address: string, security: GrpcSecurity, timeoutMs: number) {
    const settings = { timeoutMs, chain: clientChain([timeCall]) };
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

  countRequest(accountId: string): Promise<quotaV1.CountRequestResponse> {
    return this.carried.countRequest({ accountId });
  }

  /** Takes a place; with `lease`, the granted place starts the request's lease. */
  acquirePlace(accountId: string, requestId: string, lease?: quotaV1.Lease): Promise<quotaV1.AcquirePlaceResponse> {
    return this.carried.acquirePlace({ accountId, requestId, lease });
  }

  reserveFree(request: quotaV1.ReserveFreeRequest): Promise<quotaV1.ReserveFreeResponse> {
    return this.carried.reserveFree(request);
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

  close(): void {
    this.streams.close();
    this.rpc.close();
  }
}
