import { EDGE_CALLER, MinuteCount, PlaceAsk, PlaceGrant } from './limit-store';

/** An ask for a place that counts nothing, in the edge's name (as Admit's places are). */
export const EDGE_ASK: PlaceAsk = Object.freeze({ caller: EDGE_CALLER, countsTurn: false });

/** A store's answer to an ask for a place, as PlaceGrant says it. */
export function placeGrant(
  outcome: 'granted' | NonNullable<PlaceGrant['refusal']>,
  limit: number,
  count: MinuteCount | undefined,
): PlaceGrant {
  const grant: PlaceGrant = outcome === 'granted' ? { granted: true, limit } : { granted: false, limit, refusal: outcome };
  return count ? { ...grant, count } : grant;
}
