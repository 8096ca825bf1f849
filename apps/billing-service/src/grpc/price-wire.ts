import { billingV1 } from '@gw/contracts';
import { PriceRecord } from '../store/billing-records';

/** A price as billing.v1 carries it. */
export const toPrice = (p: PriceRecord): billingV1.Price => ({
  model: p.model,
  inputMicroLydPerMillion: p.inputMicroPerMillion,
  outputMicroLydPerMillion: p.outputMicroPerMillion,
});
