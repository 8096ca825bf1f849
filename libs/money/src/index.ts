export { MAX_MICRO_LYD, microToLyd, parseLyd, readLyd } from './lyd';
export type { LydReading } from './lyd';
