import { readLyd } from '@gw/money';
import { CtlConfig } from '../config';
import { CtlClients } from '../ctl-clients';
import { CtlUsageError } from '../parse-args';

/** A check that found something wrong: its report is printed as it is, and the run exits 1. */
export class CtlCheckFailed extends Error {
  constructor(readonly report: unknown) {
    super('the check found violations');
  }
}

/** One `NOUN VERB`: takes the flags, returns the JSON document to print. */
export type Command = (flags: Map<string, string>, clients: CtlClients) => Promise<unknown>;

/** A command that works on local files and connects to no service unless it has to, from the configuration. */
export type LocalCommand = (flags: Map<string, string>, config: CtlConfig) => Promise<unknown>;

/**
 * An entry of the command table: its usage line, as docs/operator-cli.md shows it, which declares
 * the flags it takes (`--name VALUE` required, `[--name VALUE]` optional, `[--name]` a switch;
 * see checkFlags), and what runs it.
 */
export interface Declared<Run> {
  usage: string;
  run: Run;
}

/** The value of a required flag. */
export function required(flags: Map<string, string>, name: string): string {
  const value = flags.get(name);
  if (value === undefined || value === 'true') throw new CtlUsageError(`--${name} is required`);
  return value;
}

/** A flag's LYD amount in exact micro-LYD; refused with readLyd's reason (no float rounding, no overflow). */
export function lydFlag(name: string, text: string): number {
  const reading = readLyd(text);
  if (!reading.ok) throw new CtlUsageError(`--${name} ${reading.problem}`);
  return reading.micro;
}

/** The operator's `--reason TEXT` for a change, kept in the audit trail; empty when not given. */
export function reasonFlag(flags: Map<string, string>): string {
  const reason = flags.get('reason');
  if (reason === 'true') throw new CtlUsageError('--reason takes a value');
  return reason ?? '';
}
