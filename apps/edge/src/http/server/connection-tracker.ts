import { Server, ServerResponse } from 'node:http';
import { Socket } from 'node:net';

/** Closes the public server's connections that serve no request, now and as their requests end. */
export interface ConnectionTracker {
  closeUnused(): void;
  /** Connections accepted and not yet closed. */
  openConnections(): number;
}

/** Tells the client of a reply not yet sent that its connection closes after it. */
function lastOnConnection(res: ServerResponse): void {
  if (!res.headersSent) res.setHeader('Connection', 'close');
}

/**
 * Keeps count of the requests each connection of `server` is serving. Node's own
 * closeIdleConnections leaves alone a connection that has not sent a request yet (clients open
 * such spare connections, for one when a request is aborted): at shutdown it would be held until
 * the grace time ran out. `closeUnused` closes every connection serving nothing, and from then
 * on each connection whose last request ends; every reply not yet sent by then says
 * `Connection: close`, so that no client sends another request on a connection about to close.
 * A connection is held only from its accept to its close; its count lives beside it in a
 * WeakMap, so a reply that closes after its connection (a caller gone) cannot hold it.
 */
export function trackConnections(server: Server): ConnectionTracker {
  const open = new Set<Socket>();
  const serving = new WeakMap<Socket, number>();
  const replies = new Set<ServerResponse>();
  let closing = false;
  server.on('connection', (socket: Socket) => {
    open.add(socket);
    socket.once('close', () => open.delete(socket));
  });
  server.on('request', (req, res: ServerResponse) => {
    const socket: Socket = req.socket;
    serving.set(socket, (serving.get(socket) ?? 0) + 1);
    replies.add(res);
    if (closing) lastOnConnection(res);
    res.once('close', () => {
      replies.delete(res);
      const left = (serving.get(socket) ?? 1) - 1;
      serving.set(socket, left);
      if (closing && left === 0) socket.destroy();
    });
  });
  return {
    openConnections: () => open.size,
    closeUnused: () => {
      closing = true;
      for (const res of replies) lastOnConnection(res);
      for (const socket of open) if ((serving.get(socket) ?? 0) === 0) socket.destroy();
    },
  };
}
