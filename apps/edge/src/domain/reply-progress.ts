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

  /** Part of a reply arrived. */
  partArrived(): void {
    if (this.outcome.kind === 'nothing') this.outcome = { kind: 'partial' };
  }

  /** The provider reported the tokens. */
  usageReported(usage: Usage): void {
    this.outcome = { kind: 'reported', usage };
  }

  /** The bill if the reply broke off now. */
  billableNow(facts: { promptTokens: number; maxTokens: number }): BillableUsage {
    return billableUsage(this.outcome, { ...facts, elapsedMs: Date.now() - this.startedAt });
  }
}
