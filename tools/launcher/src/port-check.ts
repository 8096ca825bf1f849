import { createServer } from 'node:net';

/** A port the stack listens on, and the variable that sets it. */
export interface NamedPort {
  name: string;
  port: number;
}

function listenError(host: string, port: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
    server.listen(port, host, () => server.close(() => resolve(undefined)));
  });
}

/**
 * Why the stack cannot listen on `ports` at `host`, or undefined when it can: a port set twice,
 * or one that another program (an earlier `npm start`, say) already holds. Checked before
 * anything starts, so that a refused start leaves nothing behind and touches no data.
 */
export async function portProblem(host: string, ports: NamedPort[]): Promise<string | undefined> {
  const twice = ports.filter((p, i) => p.port !== 0 && ports.findIndex((q) => q.port === p.port) !== i);
  if (twice.length) {
    const clashes = twice.map((p) => `${ports.find((q) => q.port === p.port)?.name} and ${p.name} are both ${p.port}`);
    return `each port must be set once: ${clashes.join('; ')}`;
  }
  const errors = await Promise.all(ports.map((p) => listenError(host, p.port)));
  const taken = ports.flatMap((p, i) => (errors[i] ? [`${p.port} (${p.name}${errors[i] === 'EADDRINUSE' ? '' : `, ${errors[i]}`})`] : []));
  if (taken.length === 0) return undefined;
  return `ports taken on ${host}: ${taken.join(', ')}. Another program holds them, perhaps an earlier npm start still running: stop it, or set these variables to free ports`;
}
