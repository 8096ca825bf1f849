import { auditTrailKeyMigration, Migration } from '@gw/service-kit';

/**
 * Every balance movement is covered by a link of the audit chain (billing.audit_log). A link's
 * rows (billing.link_rows) say which movements it covers, one per movement: an operator's entry
 * (kind entry: its balance_entries id), a charge or its correction (kind charge: the billing id
 * and what the batch charged or gave back), an account's charges archived (kind archive). The
 * link itself keeps the rows' count and digest (LINK_DIGEST), and its mac (AUDIT_KEY) makes it
 * one the service wrote: rows changed, added or deleted afterwards no longer give the digest.
 */
export const migration: Migration = auditTrailKeyMigration('034-audit-trail-keyed', 'billing');
