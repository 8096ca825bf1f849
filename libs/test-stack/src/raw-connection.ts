import { connect, Socket } from 'node:net';

/** A plain TCP connection to the edge, for requests no HTTP client would send (drips, bodies left unsent). */
export interface RawConnection {
  socket: Socket;
  /** Everything the edge sent so far. */
  received(): string;
  /** Resolves once `text` has arrived; rejects when the connection closes first. */
  until(text: string): Promise<string>;
  /** Resolves once the connection is closed (by either side), with what had arrived. */
  closed: Promise<string>;
  /** Whether the connection is closed. */
  isClosed(): boolean;
}

/** Opens a connection to the host and port of `baseUrl` and resolves once it is connected (or closed at once). */
export async function openRaw(baseUrl: string): Promise<RawConnection> {
  const url = new URL(baseUrl);
  const socket = connect(Number(url.port), url.hostname);
  let text = '';
  let isClosed = false;
  const waiting = new Set<() => void>();
  socket.on('data', (d: Buffer) => {
    text += d.toString('latin1');
    for (const check of waiting) check();
  });
  socket.on('error', () => undefined);
  const closed = new Promise<string>((resolve) =>
    socket.once('close', () => {
      isClosed = true;
      for (const check of waiting) check();
      resolve(text);
    }),
  );
  await new Promise<void>((resolve) => {
    socket.once('connect', resolve);
    socket.once('close', resolve);
  });
  return {
    socket,
    received: () => text,
    until: (wanted) =>
      new Promise((resolve, reject) => {
        const check = () => {
          if (text.includes(wanted)) {
            waiting.delete(check);
            resolve(text);
          } else if (isClosed) {
            waiting.delete(check);
            reject(new Error(`closed before "${wanted}" arrived; got: ${text.slice(0, 300)}`));
          }
        };
        waiting.add(check);
        check();
      }),
    closed,
    isClosed: () => isClosed,
  };
}

/** The status code of the first HTTP reply in `text`. */
export const statusOf = (text: string): number => Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0);

/** The head (status line and headers, lower-cased names) and body of the first reply in `text`. */
export function replyOf(text: string): { status: number; headers: Record<string, string>; body: string } {
  const end = text.indexOf('\r\n\r\n');
  const [statusLine, ...lines] = text.slice(0, end).split('\r\n');
  const headers = Object.fromEntries(
    lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
  );
  const length = Number(headers['content-length'] ?? text.length);
  return { status: statusOf(statusLine), headers, body: text.slice(end + 4, end + 4 + length) };
}
