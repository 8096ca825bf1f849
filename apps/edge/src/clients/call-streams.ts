import { CallStreamSettings } from '@gw/service-kit';

/**
 * The edge's call streams to quota- and billing-service: four used in turn (round robin spreads
 * them over replicas), each taking new calls for 20 s, well inside a connection's maximum age
 * plus its 30 s grace, so no stream is cut under its calls.
 */
export const CALL_STREAMS: CallStreamSettings = { streams: 4, rotateMs: 20_000 };
