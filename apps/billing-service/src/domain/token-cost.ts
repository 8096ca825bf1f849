const PER_MILLION = 1_000_000n;

/** Prices in micro-LYD per million tokens. */
export interface TokenPrices {
  inputMicroPerMillion: number;
  outputMicroPerMillion: number;
}

/**
 * The cost of tokens in micro-LYD: ceil((prompt × input + completion × output) / 1,000,000).
 * Products are taken in BigInt so that nothing is rounded before the one rounding up at the end.
 * Every argument must be a non-negative integer.
 */
export function tokenCostMicro(promptTokens: number, completionTokens: number, prices: TokenPrices): bigint {
  const perMillion = BigInt(promptTokens) * BigInt(prices.inputMicroPerMillion) + BigInt(completionTokens) * BigInt(prices.outputMicroPerMillion);
  return (perMillion + PER_MILLION - 1n) / PER_MILLION;
}
