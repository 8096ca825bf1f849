import { lydText } from '@gw/money';
import { csvLine } from './csv-line';
import { monthBounds, MovementKind, STATEMENT_COLUMNS, STATEMENT_HEADER, StatementColumn, StatementStatus } from './statement-format';

/** Whose statement, of which month, and where it opens. */
export interface StatementHead {
  accountId: string;
  /** YYYY-MM (UTC). */
  month: string;
  status: StatementStatus;
  openingMicro: number;
}

/** One movement of a balance, as the books hold it; amounts in micro-LYD, negative when money left the balance. */
export interface StatementMovement {
  /** UTC, ISO 8601 with microseconds ("2026-01-05T10:00:00.123456Z"). */
  time: string;
  kind: MovementKind;
  amountMicro: number;
  /** A request's billing id (charge, estimate-corrected). */
  requestId?: string;
  model?: string;
  promptTokens?: number;
  completionTokens?: number;
  inputMicroPerMillion?: number;
  outputMicroPerMillion?: number;
  usage?: 'reported' | 'estimated';
  endReason?: string;
  paid?: boolean;
  /** What the balance could not carry of it (not taken). */
  shortfallMicro?: number;
  /** The operator's reason of a balance entry. */
  note?: string;
}

const line = (fields: Partial<Record<StatementColumn, string>>): string => csvLine(STATEMENT_COLUMNS.map((c) => fields[c] ?? ''));
const count = (n: number | undefined) => (n === undefined ? undefined : String(n));
const lyd = (micro: number | undefined) => (micro === undefined ? undefined : lydText(micro));

/**
 * Writes a statement's lines (without line ends) in order: `opening()` (the header and the
 * opening row), a `movement()` per movement in time order, each row with the balance after it,
 * then `closing()`. The same head and movements always give the same lines.
 */
export class StatementWriter {
  private balanceMicro: number;
  private readonly who: Partial<Record<StatementColumn, string>>;

  constructor(private readonly head: StatementHead) {
    this.balanceMicro = head.openingMicro;
    this.who = { account: head.accountId, month: head.month };
  }

  /** The header line and the opening row. */
  opening(): string[] {
    const { start } = monthBounds(this.head.month);
    return [
      STATEMENT_HEADER,
      line({ ...this.who, time: start, kind: 'opening', balance_lyd: lydText(this.head.openingMicro), note: this.head.status }),
    ];
  }

  movement(m: StatementMovement): string {
    this.balanceMicro += m.amountMicro;
    if (!Number.isSafeInteger(this.balanceMicro))
      throw new Error(`the balance of ${this.head.accountId} leaves the safe range at ${m.time}`);
    return line({
      ...this.who,
      time: m.time,
      kind: m.kind,
      request_id: m.requestId,
      model: m.model,
      prompt_tokens: count(m.promptTokens),
      completion_tokens: count(m.completionTokens),
      input_lyd_per_million: lyd(m.inputMicroPerMillion),
      output_lyd_per_million: lyd(m.outputMicroPerMillion),
      usage: m.usage,
      end_reason: m.endReason,
      paid: m.paid === undefined ? undefined : m.paid ? 'paid' : 'free',
      amount_lyd: lydText(m.amountMicro),
      shortfall_lyd: lyd(m.shortfallMicro),
      balance_lyd: lydText(this.balanceMicro),
      note: m.note,
    });
  }

  /** The closing row: the balance after every movement written. */
  closing(): string {
    const { end } = monthBounds(this.head.month);
    return line({ ...this.who, time: end, kind: 'closing', balance_lyd: lydText(this.balanceMicro), note: this.head.status });
  }

  /** The balance after the movements written so far. */
  get closingMicro(): number {
    return this.balanceMicro;
  }
}
