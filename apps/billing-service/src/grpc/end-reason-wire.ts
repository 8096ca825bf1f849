import { billingV1 } from '@gw/contracts';
import { EndReason } from '../store/credit-line-records';

const { EndReason: Wire } = billingV1;

const TO_WIRE: Record<EndReason, billingV1.EndReason> = {
  '': Wire.END_REASON_UNSPECIFIED,
  complete: Wire.END_REASON_COMPLETE,
  'caller-left': Wire.END_REASON_CALLER_LEFT,
  'provider-broke-off': Wire.END_REASON_PROVIDER_BROKE_OFF,
  recovered: Wire.END_REASON_RECOVERED,
};

const FROM_WIRE = new Map(Object.entries(TO_WIRE).map(([text, wire]) => [wire, text as EndReason]));

/** An end reason as billing.v1 sends it. */
export const toEndReasonWire = (reason: EndReason): billingV1.EndReason => TO_WIRE[reason];

/** A bill's end reason as the ledger records it; unset, or a value this replica does not know, is not recorded (''). */
export const fromEndReasonWire = (wire: billingV1.EndReason | undefined): EndReason =>
  wire === undefined ? '' : (FROM_WIRE.get(wire) ?? '');
