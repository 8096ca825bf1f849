import { holderEventsMigration, Migration } from '@gw/service-kit';

/**
 * What the account's holders are told of by mail (top-ups, low and exhausted balance), recorded in
 * the transaction that moves the money and served to the notifier (billing.v1 WatchHolderEvents).
 */
export const migration: Migration = holderEventsMigration('038-holder-events', 'billing');
