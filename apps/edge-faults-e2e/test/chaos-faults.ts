import { eventually, RunningStack } from '@gw/test-stack';
import { RunningLoad } from './chaos-load';

/** One process crash of the chaos test. */
export interface Fault {
  app: 'edge' | 'auth-service' | 'quota-service' | 'billing-service';
  /** For the edge: the replica killed (the other keeps serving). */
  replica?: number;
  /** Earliest start, from the start of the load. */
  atMs: number;
}

/** What one fault did. */
export interface FaultRecord {
  app: string;
  replica?: number;
  /** Requests in flight (on that replica, for the edge) when the SIGKILL went out. */
  inFlightAtKill: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits (bounded) until at least `wanted` requests are in flight where the fault will hit. */
async function untilInFlight(load: RunningLoad, fault: Fault, wanted: number, timeoutMs: number): Promise<number> {
  const count = () => (fault.app === 'edge' ? load.inFlight(fault.replica) : load.inFlight());
  // Fewer than wanted at the deadline is a figure of the run, not a failure.
  return eventually(count, (n) => n >= wanted, { timeoutMs }).catch(count);
}

/**
 * Kills each app in turn with SIGKILL while requests are in flight, and starts it again after
 * `downMs`: a crash, not a shutdown, so nothing is drained or handed over.
 */
export async function injectFaults(stack: RunningStack, load: RunningLoad, faults: Fault[], downMs: number): Promise<FaultRecord[]> {
  const started = Date.now();
  const done: FaultRecord[] = [];
  for (const fault of faults) {
    // The schedule of the faults is the scenario.
    await sleep(Math.max(0, fault.atMs - (Date.now() - started)));
    const inFlightAtKill = await untilInFlight(load, fault, 3, 5_000);
    await stack.killApp(fault.app, fault.replica);
    done.push({ app: fault.app, replica: fault.replica, inFlightAtKill });
    await sleep(downMs);
    await stack.startApp(fault.app);
  }
  return done;
}
