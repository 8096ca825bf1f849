/** The chat product's client of quota-service: a small typed wrapper and the generated quota.v1 client. */
export { ChatProductQuota, tlsCredentials } from './chat-product-quota';
export type { ChatProductQuotaOptions, CountedTurn, TurnTokens, Usage } from './chat-product-quota';
export * as quotaV1 from './gen/quota/v1/quota';
