import { status } from '@grpc/grpc-js';
import { quotaV1 } from '@gw/contracts';
import { RpcError } from '@gw/service-kit';
import { requireLease } from '../../domain/request-leases';
import { OlderOutboxBill } from '../../store/outbox/bill-outbox';
import { toLeaseRecord } from '../free-tier-messages';

/**
 * The lease an AcquirePlace starts, if it carries one. A lease is a bill in waiting (its payment
 * and tokens are billed when it lapses), and the chat product's use counts toward usage and the
 * shared limits, never toward the API balance or the free tier (docs/api.md#overview): so only the edge may
 * send one (PERMISSION_DENIED from any other caller, whatever the lease says). And a lease is that
 * of the call's own request and account (INVALID_ARGUMENT otherwise, from any caller), so that no
 * call bills an account other than the one whose place it takes. The lease is checked whole
 * (requireLease) before the place is asked for: a refused call changes nothing.
 */
export function placeLease(req: quotaV1.AcquirePlaceRequest, fromEdge: boolean): OlderOutboxBill | undefined {
  if (!req.lease) return undefined;
  if (!fromEdge) throw new RpcError(status.PERMISSION_DENIED, 'only the edge may start a lease: leave lease unset');
  if (req.lease.accountId !== req.accountId) throw new RpcError(status.INVALID_ARGUMENT, 'the lease is of another account than the call');
  if (req.lease.requestId !== req.requestId) throw new RpcError(status.INVALID_ARGUMENT, 'the lease is of another request');
  return requireLease(toLeaseRecord(req.lease));
}
