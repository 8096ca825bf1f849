import { logCorrelation } from '@gw/telemetry';

/** Fields of one log event. */
export type LogFields = Record<string, unknown>;

/**
 * A JSON-lines logger: one line per event, never a secret. While tracing, a line written while
 * serving a request also carries its traceId, spanId and the edge's requestId.
 */
export interface Logger {
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
  /** A logger whose every line also carries these fields (a request id, say). */
  child(fields: LogFields): Logger;
}

const LEVELS = { debug: 10, info: 20, warn: 30, error: 40 } as const;
export type LogLevel = keyof typeof LEVELS;

// Anything shaped like an API key is cut down to its public prefix, in case one slips into a field.
const KEY_PATTERN = /(sk-[A-Za-z0-9]{0,5})[A-Za-z0-9-]{6,}/g;

function scrub(value: unknown): unknown {
  if (typeof value === 'string') return value.replace(KEY_PATTERN, '$1…');
  if (value instanceof Error) return { name: value.name, message: scrub(value.message) };
  return value;
}

/** Creates a logger writing JSON lines to `write` (stdout by default). */
export function createLogger(
  service: string,
  level: LogLevel = 'info',
  write: (line: string) => void = (line) => process.stdout.write(line),
  base: LogFields = {},
): Logger {
  const threshold = LEVELS[level] ?? LEVELS.info;
  const emit = (lvl: LogLevel, msg: string, fields?: LogFields) => {
    if (LEVELS[lvl] < threshold) return;
    const event: LogFields = { time: new Date().toISOString(), level: lvl, service, msg: scrub(msg) };
    for (const [k, v] of Object.entries({ ...logCorrelation(), ...base, ...fields })) event[k] = scrub(v);
    write(`${JSON.stringify(event)}\n`);
  };
  return {
    debug: (msg, fields) => emit('debug', msg, fields),
    info: (msg, fields) => emit('info', msg, fields),
    warn: (msg, fields) => emit('warn', msg, fields),
    error: (msg, fields) => emit('error', msg, fields),
    child: (fields) => createLogger(service, level, write, { ...base, ...fields }),
  };
}
