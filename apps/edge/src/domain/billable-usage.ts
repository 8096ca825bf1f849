import { Usage } from './provider-usage';

/** What reading the provider's reply came to, as far as billing is concerned. */
export type ReplyOutcome =
  /** The provider reported the tokens (whole reply, or the usage chunk of a stream). */
  | { kind: 'reported'; usage: Usage }
  /** Part or all of a reply arrived, without usage: it broke off, or the provider left usage out. */
  | { kind: 'partial' }
  /** No part of a reply arrived: unreachable, refused, or an answer that is not a reply. */
  | { kind: 'nothing' };

/** Reply tokens assumed per second of a request whose usage never came (docs/api.md#billing-rules). */
export const ESTIMATED_TOKENS_PER_SECOND = 20;

/** What the request is billed with, and whether it is an estimate. */
export interface BillableUsage {
  usage: Usage;
  usageEstimated: boolean;
}

/** The request facts the estimate needs. */
export interface RequestFacts {
  /** The edge's estimate of the prompt. */
  promptTokens: number;
  /** The reply limit sent to the provider. */
  maxTokens: number;
  /** How long the request ran, from the provider call to the end of its reply. */
  elapsedMs: number;
}

const NOTHING: BillableUsage = { usage: { promptTokens: 0, completionTokens: 0 }, usageEstimated: false };

/**
 * docs/api.md#billing-rules: the provider's usage when it reported one; otherwise, when part of a reply
 * arrived, the prompt estimate plus 20 tokens per second of the request's time, at most
 * max_tokens, marked estimated; nothing when no part of a reply arrived.
 */
export function billableUsage(outcome: ReplyOutcome, facts: RequestFacts): BillableUsage {
  if (outcome.kind === 'reported') return { usage: outcome.usage, usageEstimated: false };
  if (outcome.kind === 'nothing') return NOTHING;
  const completionTokens = Math.min(Math.ceil((facts.elapsedMs / 1000) * ESTIMATED_TOKENS_PER_SECOND), facts.maxTokens);
  return { usage: { promptTokens: facts.promptTokens, completionTokens }, usageEstimated: true };
}
