import { CtlUsageError, ParsedArgs } from '../parse-args';

/** A flag as a usage line declares it: whether it must be given, and its value's placeholder (none: a switch). */
export interface DeclaredFlag {
  required: boolean;
  value?: string;
}

/** `--name VALUE` (required), `[--name VALUE]` (optional), `[--name]` (a switch: no value, or true/false). */
const FLAG = /(\[?)--([a-z][a-z0-9-]*)(?: ([^\s[\]-][^\s[\]]*))?(\]?)/g;

/** `NOUN [VERB] [ARGUMENT ...]`: what a usage line holds besides its flags, an argument in capitals. */
const COMMAND = /^[a-z][a-z-]*( [a-z][a-z-]*)?( [A-Z][A-Z_]*)*$/;

/**
 * The flags a usage line declares, as docs/operator-cli.md writes it:
 * `balance add --account ID --amount LYD [--reason TEXT] [--idempotency-key K]`. A line that is
 * not `NOUN [VERB] [ARGUMENT ...]` followed by such flags is a mistake in the command table, thrown as one.
 */
export function declaredFlags(usage: string): Map<string, DeclaredFlag> {
  const declared = new Map<string, DeclaredFlag>();
  for (const [, open, name, value, close] of usage.matchAll(FLAG)) {
    if (Boolean(open) !== Boolean(close) || declared.has(name))
      throw new Error(`usage "${usage}": --${name} is not declared as --name VALUE or [--name VALUE]`);
    if (!open && value === undefined) throw new Error(`usage "${usage}": a switch (--${name}) is optional: [--${name}]`);
    declared.set(name, { required: !open, value });
  }
  if (!COMMAND.test(usage.replace(FLAG, '').trim())) throw new Error(`usage "${usage}": not NOUN [VERB] [ARGUMENT ...] and flags`);
  return declared;
}

/** The arguments a usage line declares, in order: `statement verify FILE` declares FILE. */
export const declaredOperands = (usage: string): string[] =>
  usage
    .replace(FLAG, '')
    .trim()
    .split(' ')
    .filter((word) => /^[A-Z]/.test(word));

/**
 * The one check of every command's flags and arguments against its usage line, before it runs
 * (so before anything is changed): each argument it declares and no other, no flag it does not
 * declare (the message gives the usage), a value for each flag that takes one, none or true/false
 * for a switch, every required flag given. Answers the flags, and the arguments by their names
 * in lower case (FILE: `file`).
 */
export function checkFlags(usage: string, given: Pick<ParsedArgs, 'operands' | 'flags' | 'bare'>): Map<string, string> {
  const operands = declaredOperands(usage);
  if (given.operands.length > operands.length)
    throw new CtlUsageError(`unexpected argument "${given.operands[operands.length]}"; usage: ${usage}`);
  if (given.operands.length < operands.length) throw new CtlUsageError(`${operands[given.operands.length]} is required; usage: ${usage}`);
  const declared = declaredFlags(usage);
  for (const [name, text] of given.flags) {
    const flag = declared.get(name);
    if (!flag)
      throw new CtlUsageError(
        declared.size > 0 ? `unknown flag --${name}; usage: ${usage}` : `unknown flag --${name}; ${usage} takes no flags`,
      );
    if (flag.value !== undefined && given.bare.has(name)) throw new CtlUsageError(`--${name} takes a value`);
    if (flag.value === undefined && text !== 'true' && text !== 'false') throw new CtlUsageError(`--${name} takes no value, or true/false`);
  }
  for (const [name, flag] of declared)
    if (flag.required && !given.flags.has(name)) throw new CtlUsageError(`--${name} is required; usage: ${usage}`);
  return new Map([...given.flags, ...operands.map((name, i): [string, string] => [name.toLowerCase(), given.operands[i]])]);
}
