/** A command line: `NOUN VERB [ARGUMENT ...] [--flag value | --switch ...]`. */
export interface ParsedArgs {
  noun: string;
  verb: string;
  /** The arguments between the verb and the first flag (`statement verify FILE`). */
  operands: string[];
  flags: Map<string, string>;
  /** The flags given without a value (read as "true" in `flags`). */
  bare: Set<string>;
}

/**
 * Splits argv into noun, verb, arguments and flags; a flag with no value (or followed by a flag) is "true".
 * A flag given twice is refused: which of its values was meant is the operator's to say. An empty
 * value is refused too: `--idempotency-key ''` must not pass for no key. Which flags a command
 * takes is checked against its usage line (checkFlags).
 */
export function parseArgs(argv: readonly string[]): ParsedArgs {
  const [noun = '', ...after] = argv;
  // A command of one word (`audit`) has no verb: its flags follow the noun.
  const verb = after[0] !== undefined && !after[0].startsWith('--') ? after[0] : '';
  const rest = verb ? after.slice(1) : after;
  const operands: string[] = [];
  let i = 0;
  for (; i < rest.length && !rest[i].startsWith('--'); i++) {
    if (rest[i].trim() === '') throw new CtlUsageError('an argument is empty: give it a value');
    operands.push(rest[i]);
  }
  const flags = new Map<string, string>();
  const bare = new Set<string>();
  for (; i < rest.length; i++) {
    const arg = rest[i];
    if (!arg.startsWith('--')) throw new CtlUsageError(`unexpected argument "${arg}"`);
    const name = arg.slice(2);
    if (flags.has(name)) throw new CtlUsageError(`--${name} is given more than once`);
    const next = rest[i + 1];
    if (next === undefined || next.startsWith('--')) {
      flags.set(name, 'true');
      bare.add(name);
    } else if (next.trim() === '') throw new CtlUsageError(`--${name} is empty: give it a value, or leave it out`);
    else {
      flags.set(name, next);
      i++;
    }
  }
  return { noun, verb, operands, flags, bare };
}

/** The command line itself is wrong. */
export class CtlUsageError extends Error {
  readonly code = 'USAGE';
}
