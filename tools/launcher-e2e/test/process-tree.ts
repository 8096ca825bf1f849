import { execFileSync } from 'node:child_process';

interface Row {
  pid: number;
  ppid: number;
  zombie: boolean;
}

function processTable(): Row[] {
  return execFileSync('ps', ['-A', '-o', 'pid=,ppid=,stat='], { encoding: 'utf8' })
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .filter((cols) => cols.length === 3)
    .map(([pid, ppid, stat]) => ({ pid: Number(pid), ppid: Number(ppid), zombie: stat.startsWith('Z') }));
}

/** `root` and every live process below it, read from `ps` (Linux and macOS). */
export function processTree(root: number): number[] {
  const rows = processTable().filter((r) => !r.zombie);
  const tree = [root];
  for (let i = 0; i < tree.length; i += 1) tree.push(...rows.filter((r) => r.ppid === tree[i]).map((r) => r.pid));
  return tree;
}

/** Those of `pids` still running (a zombie has ended), once they all ended or `withinMs` passed. */
export async function survivors(pids: number[], withinMs: number): Promise<number[]> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    const alive = new Set(
      processTable()
        .filter((r) => !r.zombie)
        .map((r) => r.pid),
    );
    const left = pids.filter((pid) => alive.has(pid));
    if (left.length === 0 || Date.now() >= deadline) return left;
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** SIGKILL to each of `pids` still there: the cleanup after a test that left processes behind. */
export function killAll(pids: number[]): void {
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
}
