/** The prices one bill was admitted with, and the span of time they must have been in force in (Unix ms, inclusive). */
export interface PricesAsked {
  model: string;
  inputMicroPerMillion: number;
  outputMicroPerMillion: number;
  fromMs: number;
  toMs: number;
}

/** Every price each model had, and when it came into force (billing.price_history). */
export interface PriceHistoryStore {
  /** For each ask, in order: whether its model had exactly these prices in force at some moment of its span. */
  inForce(asks: readonly PricesAsked[]): Promise<boolean[]>;
}
