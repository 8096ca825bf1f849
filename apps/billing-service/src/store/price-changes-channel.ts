/** The channel billing.set_price notifies each price change on (PgPriceFeed listens). */
export const PRICE_CHANGES_CHANNEL = 'billing_price_changes';
