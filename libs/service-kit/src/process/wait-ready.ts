/** How to tell that a process is up: an HTTP URL (its /readyz or /healthz) answering 200. */
export interface Readiness {
  url: string;
}

/** The readiness of a process with an admin port (the edge's, or a service's metrics port): GET /readyz. */
export function readyzAt(host: string, port: number): Readiness {
  return { url: `http://${host}:${port}/readyz` };
}

async function isReady({ url }: Readiness): Promise<boolean> {
  const res = await fetch(url, { signal: AbortSignal.timeout(1000) }).catch(() => undefined);
  return res?.status === 200;
}

/** Polls a process's readiness URL until it answers 200; rejects after `timeoutMs`. */
export async function waitReady(readiness: Readiness, timeoutMs: number, stillRunning: () => boolean): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await isReady(readiness))) {
    if (!stillRunning()) throw new Error('exited before it was ready');
    if (Date.now() > deadline) throw new Error(`not ready after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 150));
  }
}
