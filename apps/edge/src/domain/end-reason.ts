import { quotaV1 } from '@gw/contracts';

const { END_REASON_COMPLETE, END_REASON_CALLER_LEFT, END_REASON_PROVIDER_BROKE_OFF } = quotaV1.EndReason;

/** How the caller's side of a reply ended. */
export type CallerEnd = 'delivered' | 'left' | 'cut-for-silence' | 'failed';

/**
 * Why a request ended, for its bill (`end_reason` in the ledger): the provider's side first, since it decides what
 * was billed; a reply read whole that the caller did not stay for is the caller's leaving. A caller
 * cut off because the provider fell silent saw the provider break off.
 */
export function endReasonOf(providerReplyWhole: boolean, caller: CallerEnd): quotaV1.EndReason {
  if (!providerReplyWhole || caller === 'cut-for-silence') return END_REASON_PROVIDER_BROKE_OFF;
  return caller === 'left' ? END_REASON_CALLER_LEFT : END_REASON_COMPLETE;
}
