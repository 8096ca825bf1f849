import { quotaV1 } from '@gw/contracts';
import { CallStreamClient, GrpcSecurity, grpcClient } from '@gw/service-kit';
import { inRpcClientSpan } from '@gw/telemetry';
import { CALL_STREAMS } from './call-streams';
import { timed, timedCall } from './timed-call';

type EdgeRequest = NonNullable<quotaV1.EdgeCall['request']>;
type EdgeResponse = NonNullable<quotaV1.EdgeAnswer['response']>;
type ResponseOf<C extends EdgeRequest['$case']> = Extract<EdgeResponse, { $case: C }>['value'];

/**
 * The edge's calls to quota-service, each with a deadline and timed. The per-request ones
 * (admission, count, place, free reservation, finish) travel on EdgeCalls streams (CallStreamClient); the
 * rest are unary calls.
 */
export class QuotaClient {
  private readonly client: quotaV1.QuotaClient;
  private readonly streams: CallStreamClient<quotaV1.EdgeCall['request'], quotaV1.EdgeAnswer['response']>;

  constructor(
    address: string,
    security: GrpcSecurity,
    private readonly timeoutMs: number,
  ) {
    this.client = grpcClient(quotaV1.QuotaClient, address, security, 'quota-service');
    this.streams = new CallStreamClient<quotaV1.EdgeCall['request'], quotaV1.EdgeAnswer['response']>(
      () => this.client.edgeCalls(),
      CALL_STREAMS,
    );
  }

  /** Counts, holds or reserves, and places a request in one step (quota.v1 Admit). */
  admit(request: quotaV1.AdmitRequest): Promise<quotaV1.AdmitResponse> {
    return this.streamed('Admit', { $case: 'admit', value: request });
  }

  countRequest(accountId: string): Promise<quotaV1.CountRequestResponse> {
    return this.streamed('CountRequest', { $case: 'countRequest', value: { accountId } });
  }

  /** Takes a place; with `lease`, the granted place starts the request's lease. */
  acquirePlace(accountId: string, requestId: string, lease?: quotaV1.Lease): Promise<quotaV1.AcquirePlaceResponse> {
    return this.streamed('AcquirePlace', { $case: 'acquirePlace', value: { accountId, requestId, lease } });
  }

  reserveFree(request: quotaV1.ReserveFreeRequest): Promise<quotaV1.ReserveFreeResponse> {
    return this.streamed('ReserveFree', { $case: 'reserveFree', value: request });
  }

  /** The one end-of-request call: frees the place, counts the tokens, and queues the bill durably. */
  finishRequest(request: quotaV1.FinishRequestRequest): Promise<quotaV1.FinishRequestResponse> {
    return this.streamed('FinishRequest', { $case: 'finishRequest', value: request });
  }

  /** Renews the leases of running requests (see LeaseKeeper). */
  renewLeases(leases: quotaV1.Lease[]): Promise<quotaV1.RenewLeasesResponse> {
    return timedCall('RenewLeases', this.client.renewLeases.bind(this.client), { leases }, this.timeoutMs);
  }

  getUsage(accountId: string): Promise<quotaV1.GetUsageResponse> {
    return timedCall('GetUsage', this.client.getUsage.bind(this.client), { accountId }, this.timeoutMs);
  }

  close(): void {
    this.streams.close();
    this.client.close();
  }

  private async streamed<R extends EdgeRequest>(method: string, request: R): Promise<ResponseOf<R['$case']>> {
    const response = await inRpcClientSpan('quota.v1.Quota', method, (carrier) =>
      timed(method, this.streams.call(request, this.timeoutMs, carrier)),
    );
    if (response?.$case !== request.$case) throw new Error(`quota-service answered ${method} with ${response?.$case ?? 'nothing'}`);
    return response.value as ResponseOf<R['$case']>;
  }
}
