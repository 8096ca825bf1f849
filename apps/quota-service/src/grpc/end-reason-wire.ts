import { quotaV1 } from '@gw/contracts';
import { EndReason } from '../store/outbox/bill-outbox';

const { EndReason: Wire } = quotaV1;

const FROM_WIRE = new Map<quotaV1.EndReason, EndReason>([
  [Wire.END_REASON_COMPLETE, 'complete'],
  [Wire.END_REASON_CALLER_LEFT, 'caller-left'],
  [Wire.END_REASON_PROVIDER_BROKE_OFF, 'provider-broke-off'],
  [Wire.END_REASON_RECOVERED, 'recovered'],
]);

/** An end reason as quota.v1 sends it, or nothing for UNSPECIFIED (an older edge) or a value this replica does not know. */
export const endReasonOf = (reason: quotaV1.EndReason | undefined): { endReason?: EndReason } => {
  const known = reason === undefined ? undefined : FROM_WIRE.get(reason);
  return known ? { endReason: known } : {};
};
