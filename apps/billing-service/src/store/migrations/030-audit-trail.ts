import { auditTrailMigration, Migration } from '@gw/service-kit';

/**
 * Who changed what (balances, prices, the free tier), each entry chained to the one before it.
 */
export const migration: Migration = auditTrailMigration('030-audit-trail', 'billing');
