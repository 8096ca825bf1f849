import { quotaV1 } from '@gw/contracts';
import { HoldTerms } from '../store/outbox/bill-outbox';

/** A quota.v1 Hold as the domain keeps it. */
export function toHoldTerms(hold: quotaV1.Hold): HoldTerms {
  return {
    amountMicro: hold.amountMicroLyd,
    inputMicroPerMillion: hold.inputMicroLydPerMillion,
    outputMicroPerMillion: hold.outputMicroLydPerMillion,
  };
}

/** A hold as quota.v1 sends it. */
export function toHold(terms: HoldTerms): quotaV1.Hold {
  return {
    amountMicroLyd: terms.amountMicro,
    inputMicroLydPerMillion: terms.inputMicroPerMillion,
    outputMicroLydPerMillion: terms.outputMicroPerMillion,
  };
}
