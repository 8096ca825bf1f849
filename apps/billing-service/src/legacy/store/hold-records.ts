/** An open hold: the worst case of one authorized request, with the prices it was priced at. */
export interface HoldRecord {
  requestId: string;
  accountId: string;
  model: string;
  amountMicro: number;
  inputMicroPerMillion: number;
  outputMicroPerMillion: number;
  createdAt: Date;
}

/** A hold about to be placed. */
export type NewHold = Omit<HoldRecord, 'createdAt'>;

/** One billed request, as Authorize, Settle and RecordFree read its ledger row. */
export interface LedgerRecord {
  requestId: string;
  accountId: string;
  model: string;
  promptTokens: number;
  completionTokens: number;
  inputMicroPerMillion: number;
  outputMicroPerMillion: number;
  amountMicro: number;
  /** Charged to the API balance (as opposed to a free request). */
  paid: boolean;
  usageEstimated: boolean;
  createdAt: Date;
}

/** The usage a request is settled with. */
export interface SettleUsage {
  requestId: string;
  promptTokens: number;
  completionTokens: number;
  usageEstimated: boolean;
}

/** The usage of a free request, as its ledger row records it. */
export interface FreeUsage extends SettleUsage {
  accountId: string;
  model: string;
}
