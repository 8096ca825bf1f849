import { Metadata } from '@grpc/grpc-js';
import { verifiedCallerOf } from '@gw/service-kit';
import { ANY_CALLER, PlaceAsk, PlaceCaller } from '../store/limits/limit-store';

/** The one caller whose AcquirePlace is a turn to count: the edge counts its requests with Admit or CountRequest. */
const CHAT_PRODUCT = 'chat-product';

/**
 * Who a call takes or frees places as: the identity its certificate proved. On a plain-text
 * server (local experiments, loopback only) no identity is known: ANY_CALLER, whose places are the
 * edge's and who may free any place, as before places had owners. A call with no verified caller
 * (none passes the access check) gets a name no place is taken under, so that it frees none.
 */
export function placeCaller(metadata: Metadata): PlaceCaller {
  const caller = verifiedCallerOf(metadata);
  if (caller === 'unchecked') return ANY_CALLER;
  return caller ?? 'unverified';
}

/** Whether the call is the chat product's: its AcquirePlace counts the turn, its CountRequest leaves a counted turn. */
export function isChatTurn(metadata: Metadata): boolean {
  return verifiedCallerOf(metadata) === CHAT_PRODUCT;
}

/** The ask of an AcquirePlace call. */
export function placeAsk(metadata: Metadata): PlaceAsk {
  return { caller: placeCaller(metadata), countsTurn: isChatTurn(metadata) };
}
