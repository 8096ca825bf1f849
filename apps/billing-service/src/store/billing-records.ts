/** A model's price, micro-LYD per million tokens. */
export interface PriceRecord {
  model: string;
  inputMicroPerMillion: number;
  outputMicroPerMillion: number;
}

/** An account's money: the balance and the part of it held for running requests. */
export interface BalanceRecord {
  balanceMicro: number;
  heldMicro: number;
}

/** Every model's price at one version of the price table (each change gives a higher version). */
export interface PriceTable {
  version: number;
  prices: PriceRecord[];
}

/** One price as set, and the version of the table it made. */
export interface PriceChange {
  version: number;
  price: PriceRecord;
}
