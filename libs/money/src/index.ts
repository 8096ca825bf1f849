export { lydText, MAX_MICRO_LYD, MAX_PRICE_MICRO_LYD_PER_MILLION, microToLyd, parseLyd, readLyd } from './lyd';
export type { LydReading } from './lyd';
export { chargeWithinHold, tokenCostMicro } from './token-cost';
export type { TokenPrices } from './token-cost';
