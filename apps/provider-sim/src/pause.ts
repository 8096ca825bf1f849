import { setTimeout as sleep } from 'node:timers/promises';

/** Waits `ms`; resolves false at once when `signal` aborts first (the client went away). */
export async function pause(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return false;
  try {
    await sleep(ms, undefined, { signal });
    return true;
  } catch {
    return false;
  }
}
