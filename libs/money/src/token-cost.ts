const PER_MILLION = 1_000_000n;

/** Prices in micro-LYD per million tokens. */
export interface TokenPrices {
  inputMicroPerMillion: number;
  outputMicroPerMillion: number;
}

/**
 * The cost of tokens in micro-LYD: ceil((prompt × input + completion × output) / 1,000,000).
 * Products are taken in BigInt so that nothing is rounded before the one rounding up at the end.
 * Every argument must be a non-negative integer. The one cost function of the gateway: a worst
 * case held (prompt and max_tokens), a charge, and billing's check of a charge all use it.
 */
export function tokenCostMicro(promptTokens: number, completionTokens: number, prices: TokenPrices): bigint {
  const perMillion =
    BigInt(promptTokens) * BigInt(prices.inputMicroPerMillion) + BigInt(completionTokens) * BigInt(prices.outputMicroPerMillion);
  return (perMillion + PER_MILLION - 1n) / PER_MILLION;
}

/**
 * What a request that ran under a hold of `heldMicro` at `prices` is charged for its tokens: their
 * cost, never more than the hold (a low prompt estimate costs the account nothing extra).
 */
export function chargeWithinHold(promptTokens: number, completionTokens: number, prices: TokenPrices, heldMicro: number): number {
  const cost = tokenCostMicro(promptTokens, completionTokens, prices);
  return cost < BigInt(heldMicro) ? Number(cost) : heldMicro;
}
