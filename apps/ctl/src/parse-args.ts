/** A command line: `NOUN VERB [--flag value | --switch ...]`. */
export interface ParsedArgs {
  noun: string;
  verb: string;
  flags: Map<string, string>;
}

/** Splits argv into noun, verb and flags; a flag with no value (or followed by a flag) is "true". */
export function parseArgs(argv: readonly string[]): ParsedArgs {
  const [noun = '', verb = '', ...rest] = argv;
  const flags = new Map<string, string>();
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i];
    if (!arg.startsWith('--')) throw new CtlUsageError(`unexpected argument "${arg}"`);
    const next = rest[i + 1];
    if (next === undefined || next.startsWith('--')) flags.set(arg.slice(2), 'true');
    else {
      flags.set(arg.slice(2), next);
      i++;
    }
  }
  return { noun, verb, flags };
}

/** The command line itself is wrong. */
export class CtlUsageError extends Error {
  readonly code = 'USAGE';
}
