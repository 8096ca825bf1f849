import { BillableUsage, billableUsage, ReplyOutcome } from './billable-usage';
import { Usage } from './provider-usage';

/**
 * How far a provider reply has come while it is read: what the request would be billed if it
 * broke off now (docs/api.md#billing-rules). Its lease carries this, so that a request whose edge dies is
 * billed from its last renewal.
 */
export class ReplyProgress {
  private outcome: ReplyOutcome = { kind: 'nothing' };
  private readonly startedAt = Date.now();

  /** `began`: called once, when the first part of the reply (or its usage) arrives. */
  constructor(private readonly began?: () => void) {}

  /** Part of a reply arrived. */
  partArrived(): void {
    if (this.outcome.kind !== 'nothing') return;
    this.outcome = { kind: 'partial' };
    this.began?.();
  }

  /** The provider reported the tokens. */
  usageReported(usage: Usage): void {
    const first = this.outcome.kind === 'nothing';
    this.outcome = { kind: 'reported', usage };
    if (first) this.began?.();
  }

  /** The bill if the reply broke off now. */
  billableNow(facts: { promptTokens: number; maxTokens: number }): BillableUsage {
    return billableUsage(this.outcome, { ...facts, elapsedMs: Date.now() - this.startedAt });
  }
}
