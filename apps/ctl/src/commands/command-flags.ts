import { CtlUsageError, ParsedArgs } from '../parse-args';

/** A flag as a usage line declares it: whether it must be given, and its value's placeholder (none: a switch). */
export interface DeclaredFlag {
  required: boolean;
  value?: string;
}

/** `--name VALUE` (required), `[--name VALUE]` (optional), `[--name]` (a switch: no value, or true/false). */
const FLAG = /(\[?)--([a-z][a-z0-9-]*)(?: ([^\s[\]-][^\s[\]]*))?(\]?)/g;

/**
 * The flags a usage line declares, as docs/operator-cli.md writes it:
 * `balance add --account ID --amount LYD [--reason TEXT] [--idempotency-key K]`. A line that is
 * not `NOUN [VERB]` followed by such flags is a mistake in the command table, thrown as one.
 */
export function declaredFlags(usage: string): Map<string, DeclaredFlag> {
  const declared = new Map<string, DeclaredFlag>();
  for (const [, open, name, value, close] of usage.matchAll(FLAG)) {
    if (Boolean(open) !== Boolean(close) || declared.has(name))
      throw new Error(`usage "${usage}": --${name} is not declared as --name VALUE or [--name VALUE]`);
    if (!open && value === undefined) throw new Error(`usage "${usage}": a switch (--${name}) is optional: [--${name}]`);
    declared.set(name, { required: !open, value });
  }
  const command = usage.replace(FLAG, '').trim();
  if (!/^[a-z][a-z-]*( [a-z][a-z-]*)?$/.test(command)) throw new Error(`usage "${usage}": not NOUN [VERB] and flags`);
  return declared;
}

/**
 * The one check of every command's flags against its usage line, before it runs (so before
 * anything is changed): no flag it does not declare (the message gives the usage), a value for
 * each flag that takes one, none or true/false for a switch, every required flag given.
 */
export function checkFlags(usage: string, given: Pick<ParsedArgs, 'flags' | 'bare'>): void {
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
}
