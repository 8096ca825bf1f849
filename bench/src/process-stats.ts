import { readdirSync, readFileSync } from 'node:fs';

const TICKS_PER_SECOND = 100;

/** The pid of each app this process started (found through /proc by its bundle path). */
export function childPids(): Record<string, number> {
  const pids: Record<string, number> = {};
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid !== process.pid) continue;
      const app = /dist\/apps\/([^/]+)\/main\.js/.exec(readFileSync(`/proc/${entry}/cmdline`, 'utf8'))?.[1];
      if (app) pids[app] = Number(entry);
    } catch {
      // The process ended while being read.
    }
  }
  return pids;
}

/**
 * The Postgres processes that work for `database`: its backends ("postgres: 15/main: user <database>
 * 127.0.0.1(port) ...") and the server's own (WAL writer, checkpointer...), not the backends of
 * other databases on the same server (other test runs on a shared machine).
 */
export function postgresPids(database: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() !== 'postgres') continue;
      const words = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replace(/\0/g, ' ').split(/\s+/);
      const backend = words.some((w) => /\(\d+\)$/.test(w) || w === '[local]');
      if (!backend || words.includes(database)) pids.push(Number(entry));
    } catch {
      // The process ended while being read.
    }
  }
  return pids;
}

/** CPU seconds (user + system) a process has used so far. */
export function cpuSeconds(pid: number): number {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return 0; // ended (a Postgres backend that closed): its time is not counted
  }
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
}

/** Resident memory of a process, in KB. */
export function rssKb(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) : 0;
}
