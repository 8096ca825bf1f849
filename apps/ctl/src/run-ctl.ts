import { ServiceError, status } from '@grpc/grpc-js';
import { CtlCheckFailed } from './commands/command';
import { checkFlags } from './commands/command-flags';
import { COMMANDS, LOCAL_COMMANDS } from './commands/command-table';
import { CtlConfig } from './config';
import { connectClients } from './ctl-clients';
import { CtlUsageError, parseArgs } from './parse-args';

/** What a run prints on stdout and its exit code. */
export interface CtlOutcome {
  output: string;
  exitCode: number;
}

const isServiceError = (err: unknown): err is ServiceError => typeof err === 'object' && err !== null && 'code' in err && 'details' in err;

/** Runs one command: one JSON document out, exit 0; on a refusal `{"error":{code,message}}`, exit 1. */
export async function runCtl(argv: readonly string[], config: CtlConfig): Promise<CtlOutcome> {
  const fail = (code: string, message: string): CtlOutcome => ({ output: JSON.stringify({ error: { code, message } }), exitCode: 1 });
  let clients: ReturnType<typeof connectClients> | undefined;
  try {
    const parsed = parseArgs(argv);
    const name = parsed.verb ? `${parsed.noun} ${parsed.verb}` : parsed.noun;
    const local = LOCAL_COMMANDS[name];
    const command = COMMANDS[name];
    if (!local && !command)
      return fail('USAGE', `unknown command "${name}"; known: ${[...Object.keys(COMMANDS), ...Object.keys(LOCAL_COMMANDS)].join(', ')}`);
    const flags = checkFlags((local ?? command).usage, parsed);
    if (local) return { output: JSON.stringify(await local.run(flags, config)), exitCode: 0 };
    clients = connectClients(config);
    return { output: JSON.stringify(await command.run(flags, clients)), exitCode: 0 };
  } catch (err) {
    if (err instanceof CtlUsageError) return fail(err.code, err.message);
    if (err instanceof CtlCheckFailed) return { output: JSON.stringify(err.report), exitCode: 1 };
    if (isServiceError(err)) return fail(status[err.code] ?? 'UNKNOWN', err.details || err.message);
    return fail('INTERNAL', err instanceof Error ? err.message : String(err));
  } finally {
    clients?.close();
  }
}
