/** The chat product's client of quota-service: a small typed wrapper and the generated quota.v1 client. */
export { ChatProductQuota, tlsCredentials } from './chat-product-quota';
export type { ChatProductQuotaOptions, CountedTurn, TurnStart, TurnTokens, Usage } from './chat-product-quota';
// quota.v1 as generated in libs/contracts; the package carries a compiled copy of it.
export { quotaV1 } from '@gw/contracts';
