export * as authV1 from './gen/auth/v1/auth';
export * as billingV1 from './gen/billing/v1/billing';
export * as quotaV1 from './gen/quota/v1/quota';
export * as consoleV1 from './gen/console/v1/console';
export * as healthV1 from './gen/grpc/health/v1/health';
export { METHOD_CALLERS } from './gen/access/method-callers';
export * as auditV1 from './gen/audit/v1/audit';
