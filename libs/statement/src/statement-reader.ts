import { createHash, KeyObject } from 'node:crypto';
import { splitCsvLine } from './csv-line';
import {
  monthBounds,
  MONTH,
  MOVEMENT_KINDS,
  MovementKind,
  STATEMENT_COLUMNS,
  STATEMENT_HEADER,
  StatementRow,
  StatementStatus,
} from './statement-format';
import { readSignatureNote, SIGNATURE_KIND, signatureHolds, StatementSignature, statementKeyId } from './statement-signature';

/**
 * Why a statement does not check: NOT_A_STATEMENT (not a statement file, or no signature row),
 * STATEMENT_CHANGED (its lines are not the ones signed: a line changed, added or dropped),
 * BAD_SIGNATURE (the signature is not the given key's), DOES_NOT_ADD_UP (signed, but its
 * opening and movements do not come to its closing).
 */
export type StatementProblem = 'NOT_A_STATEMENT' | 'STATEMENT_CHANGED' | 'BAD_SIGNATURE' | 'DOES_NOT_ADD_UP';

/** What a statement that checks says. */
export interface StatementSummary {
  accountId: string;
  month: string;
  status: StatementStatus;
  openingMicro: number;
  closingMicro: number;
  movements: number;
  /** Per kind of movement: how many, and what they came to, micro-LYD. */
  totals: Partial<Record<MovementKind, { count: number; amountMicro: number }>>;
  /** The id of the key that signed it, and the SHA-256 of the lines signed. */
  keyId: string;
  sha256: string;
}

export type StatementCheck = { ok: true; summary: StatementSummary } | { ok: false; code: StatementProblem; message: string };

const TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
const AMOUNT = /^-?(0|[1-9]\d*)\.\d{6}$/;
const STATUSES: readonly string[] = ['final', 'provisional'] satisfies StatementStatus[];

/** An amount's text as exact micro-LYD, or undefined. */
const microOf = (text: string): bigint | undefined => (AMOUNT.test(text) ? BigInt(text.replace('.', '')) : undefined);
const lydOf = (micro: bigint): string => {
  const abs = micro < 0n ? -micro : micro;
  return `${micro < 0n ? '-' : ''}${abs / 1_000_000n}.${String(abs % 1_000_000n).padStart(6, '0')}`;
};

interface Opened {
  accountId: string;
  month: string;
  status: StatementStatus;
  openingMicro: bigint;
  start: string;
  end: string;
}

/**
 * Reads a statement file line by line (push() takes any pieces of its text, in order) and checks
 * it at finish(): the lines signed are the ones read (SHA-256), the signature is the given
 * key's, every row has its place and form, and each movement's balance follows from the one
 * before, up to the closing balance. Keeps the first `keep` movement rows for display.
 */
export class StatementReader {
  /** The first movement rows read, at most the `keep` asked for. */
  readonly movements: StatementRow[] = [];
  private rest = '';
  private lineNumber = 0;
  private readonly hash = createHash('sha256');
  private opened?: Opened;
  private balance = 0n;
  private lastTime = '';
  private closed = false;
  private signature?: StatementSignature;
  private readonly totals: StatementSummary['totals'] = {};
  private count = 0;
  private formProblem?: string;
  private sumsProblem?: string;

  constructor(private readonly keep = 0) {}

  push(text: string): void {
    const lines = (this.rest + text).split('\n');
    this.rest = lines.pop() ?? '';
    for (const line of lines) this.read(line);
  }

  /** The check of everything pushed; with a public key, its signature too. */
  finish(publicKey?: KeyObject): StatementCheck {
    if (this.rest) this.read(this.rest);
    this.rest = '';
    const signed = this.signature;
    if (!signed) return { ok: false, code: 'NOT_A_STATEMENT', message: this.formProblem ?? 'it has no signature row' };
    const sha256 = this.hash.digest('hex');
    const problem = this.formProblem ?? this.sumsProblem;
    if (sha256 !== signed.sha256)
      return {
        ok: false,
        code: 'STATEMENT_CHANGED',
        message: `its lines are not the lines signed (their sha256 is ${sha256}, the signed ${signed.sha256})${problem ? `; ${problem}` : ''}`,
      };
    if (publicKey) {
      const keyId = statementKeyId(publicKey);
      if (keyId !== signed.keyId)
        return {
          ok: false,
          code: 'BAD_SIGNATURE',
          message: `it says it is signed with key ${signed.keyId}, not with the key given (${keyId})`,
        };
      if (!signatureHolds(Buffer.from(sha256, 'hex'), signed.signature, publicKey))
        return { ok: false, code: 'BAD_SIGNATURE', message: `its signature is not key ${keyId}'s` };
    }
    const opened = this.opened;
    if (this.formProblem || !opened || !this.closed)
      return { ok: false, code: 'NOT_A_STATEMENT', message: this.formProblem ?? 'it has no opening or no closing row' };
    if (this.sumsProblem) return { ok: false, code: 'DOES_NOT_ADD_UP', message: this.sumsProblem };
    return {
      ok: true,
      summary: {
        accountId: opened.accountId,
        month: opened.month,
        status: opened.status,
        openingMicro: Number(opened.openingMicro),
        closingMicro: Number(this.balance),
        movements: this.count,
        totals: this.totals,
        keyId: signed.keyId,
        sha256,
      },
    };
  }

  private read(line: string): void {
    this.lineNumber++;
    if (this.signature) return this.form('text after the signature row');
    if (this.lineNumber === 1) {
      this.hash.update(`${line}\n`);
      if (line !== STATEMENT_HEADER) this.form('the first line is not the header of a statement');
      return;
    }
    const fields = splitCsvLine(line);
    const row =
      fields && fields.length === STATEMENT_COLUMNS.length
        ? (Object.fromEntries(STATEMENT_COLUMNS.map((c, i) => [c, fields[i]])) as StatementRow)
        : undefined;
    if (row?.kind === SIGNATURE_KIND) {
      this.signature = readSignatureNote(row.note) ?? { keyId: '', sha256: '', signature: Buffer.alloc(0) };
      if (!this.signature.keyId) this.form('its signature row is not `ed25519 key=... sha256=... sig=...`');
      else if (this.opened && (row.account !== this.opened.accountId || row.month !== this.opened.month))
        this.form('its signature row names another account or month');
      return;
    }
    this.hash.update(`${line}\n`);
    if (!row) return this.form(`it is not ${STATEMENT_COLUMNS.length} comma-separated fields`);
    if (this.lineNumber === 2) return this.open(row);
    if (!this.opened) return;
    if (row.account !== this.opened.accountId || row.month !== this.opened.month) return this.form('it names another account or month');
    if (this.closed) return this.form('it comes after the closing row');
    if (row.kind === 'closing') return this.close(row);
    this.move(row);
  }

  private open(row: StatementRow): void {
    const opening = microOf(row.balance_lyd);
    if (row.kind !== 'opening' || !MONTH.test(row.month) || opening === undefined || !STATUSES.includes(row.note))
      return this.form('the first row is not an opening balance of a month, final or provisional');
    const { start, end } = monthBounds(row.month);
    if (row.time !== start) return this.form(`the opening is not at the month's start, ${start}`);
    this.opened = { accountId: row.account, month: row.month, status: row.note as StatementStatus, openingMicro: opening, start, end };
    this.balance = opening;
    this.lastTime = start;
  }

  private move(row: StatementRow): void {
    const opened = this.opened as Opened;
    const amount = microOf(row.amount_lyd);
    const balance = microOf(row.balance_lyd);
    if (!(MOVEMENT_KINDS as readonly string[]).includes(row.kind)) return this.form(`"${row.kind}" is not a kind of movement`);
    if (amount === undefined || balance === undefined) return this.form('its amount or balance is not LYD with 6 decimals');
    if (!TIME.test(row.time) || row.time < this.lastTime || row.time >= opened.end)
      return this.form(`its time ${row.time} is not within the month, after the row before it`);
    this.lastTime = row.time;
    this.balance += amount;
    if (balance !== this.balance)
      this.sums(`the balance ${row.balance_lyd} does not follow from the one before and ${row.amount_lyd} (${lydOf(this.balance)})`);
    this.balance = balance;
    this.count++;
    const kind = row.kind as MovementKind;
    const total = this.totals[kind] ?? { count: 0, amountMicro: 0 };
    this.totals[kind] = { count: total.count + 1, amountMicro: total.amountMicro + Number(amount) };
    if (this.movements.length < this.keep) this.movements.push(row);
  }

  private close(row: StatementRow): void {
    const opened = this.opened as Opened;
    const closing = microOf(row.balance_lyd);
    if (row.time !== opened.end || closing === undefined || row.note !== opened.status)
      return this.form("the closing row is not the balance at the month's end, of the opening's status");
    if (closing !== this.balance)
      this.sums(`the closing balance ${row.balance_lyd} is not the opening and movements, ${lydOf(this.balance)}`);
    this.closed = true;
  }

  private form(problem: string): void {
    this.formProblem ??= `line ${this.lineNumber}: ${problem}`;
  }

  private sums(problem: string): void {
    this.sumsProblem ??= `line ${this.lineNumber}: ${problem}`;
  }
}

/** Checks a whole statement file's text (verify with a public key; without one, all but its signature). */
export function checkStatement(text: string, publicKey?: KeyObject): StatementCheck {
  const reader = new StatementReader();
  reader.push(text);
  return reader.finish(publicKey);
}
