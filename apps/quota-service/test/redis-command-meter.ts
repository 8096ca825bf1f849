import { randomUUID } from 'node:crypto';
import Redis from 'ioredis';
import { eventually } from '@gw/testing';

/** The commands Redis ran for one account while some work ran. */
export interface MeteredCommands {
  /** Commands clients sent (each one round trip), by name: `evalsha`, `xadd`... */
  roundTrips: string[];
  /** Commands scripts ran on the account's keys, by name. */
  scriptCommands: string[];
}

/** A command a client sent (one round trip, or part of a pipelined one), with those it ran if it ran a script. */
export interface SentCommand {
  /** Name and arguments, as MONITOR shows them. */
  args: string[];
  /** The commands the script ran, each its name and arguments. */
  scriptCommands: string[][];
}

interface Seen {
  args: string[];
  source: string;
}

/**
 * Counts, with MONITOR, what Redis runs for one account (or under one key prefix): a command a
 * client sent belongs to it when one of its arguments holds the account id (in its keys' names,
 * or the pool's hold id), whoever sent it, so the loops of a running quota-service (outbox,
 * leases, lines) and other test files on the same server are not counted. MONITOR shows the
 * commands a script runs (source `lua`) right after the EVALSHA that ran it, and nothing else can
 * run meanwhile: those after one of the account's belong to it too.
 */
export class RedisCommandMeter {
  private seen: Seen[] = [];

  private constructor(
    private readonly monitor: Redis,
    private readonly marker: Redis,
  ) {}

  static async open(url: string): Promise<RedisCommandMeter> {
    const monitor = await new Redis(url, { lazyConnect: true }).monitor();
    const meter = new RedisCommandMeter(monitor, new Redis(url));
    monitor.on('monitor', (_time: string, args: string[], source: string) => meter.seen.push({ args: args.map(String), source }));
    return meter;
  }

  /** Runs `work` and returns what Redis ran for `accountId` meanwhile. */
  async measure<T>(accountId: string, work: () => Promise<T>): Promise<{ result: T; commands: MeteredCommands }> {
    const { result, sent } = await this.record(accountId, work);
    const name = (args: string[]) => args[0].toLowerCase();
    return {
      result,
      commands: { roundTrips: sent.map((c) => name(c.args)), scriptCommands: sent.flatMap((c) => c.scriptCommands.map(name)) },
    };
  }

  /** Runs `work` and returns, whole, the commands sent meanwhile with an argument that holds `marker` (an account id, a key prefix). */
  async record<T>(marker: string, work: () => Promise<T>): Promise<{ result: T; sent: SentCommand[] }> {
    const start = await this.mark(marker);
    const result = await work();
    const end = await this.mark(marker);
    const sent: SentCommand[] = [];
    let ours: SentCommand | undefined;
    for (const { args, source } of this.seen.slice(start + 1, end)) {
      if (source === 'lua') {
        ours?.scriptCommands.push(args);
        continue;
      }
      ours = args.slice(1).some((arg) => arg.includes(marker)) ? { args, scriptCommands: [] } : undefined;
      if (ours) sent.push(ours);
    }
    return { result, sent };
  }

  async close(): Promise<void> {
    this.monitor.disconnect();
    this.marker.disconnect();
  }

  /** Sends a command MONITOR will show and waits for it: everything Redis ran before is seen by then. Returns its index. */
  private async mark(marker: string): Promise<number> {
    const key = `marker:${marker}:${randomUUID()}`;
    await this.marker.exists(key);
    return eventually(
      () => this.seen.findIndex((c) => c.args[1] === key),
      (at) => at >= 0,
      { timeoutMs: 5000, intervalMs: 5, what: 'MONITOR showing the marker' },
    );
  }
}
