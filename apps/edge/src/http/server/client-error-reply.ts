import { Server, ServerResponse } from 'node:http';
import { Duplex } from 'node:stream';
import { FrontProxyReply, requestTimedOut } from '../replies/front-proxy-reply';

const statusLine = (status: number, reason: string) => `HTTP/1.1 ${status} ${reason}\r\nConnection: close\r\n\r\n`;

/** The bare answers Node itself gives to what its parser refuses, kept as they were. */
const PARSER_REFUSALS: Record<string, string> = {
  HPE_HEADER_OVERFLOW: statusLine(431, 'Request Header Fields Too Large'),
  HPE_CHUNK_EXTENSIONS_OVERFLOW: statusLine(413, 'Payload Too Large'),
};

/** A front proxy reply written straight to a socket, the connection closing after it. */
function raw(reply: FrontProxyReply, reason: string): string {
  const head = [
    `HTTP/1.1 ${reply.status} ${reason}`,
    `Content-Type: ${reply.contentType}`,
    `Content-Length: ${Buffer.byteLength(reply.body)}`,
    'Connection: close',
  ];
  return `${head.join('\r\n')}\r\n\r\n${reply.body}`;
}

/**
 * Answers, on the socket itself, the requests Node's HTTP server gives up on: a request whose
 * headers or whole body did not arrive within the server's timeouts gets the front proxy's 408
 * page (docs/api.md#what-the-errors-mean-for-callers: HTML, no x-request-id); what the parser refuses gets Node's own bare
 * answer. Then the connection is closed. Nothing is written where a reply has begun: it would
 * corrupt what the caller reads.
 */
export function answerClientErrors(server: Server): void {
  const replying = new WeakMap<Duplex, ServerResponse>();
  server.on('request', (req, res: ServerResponse) => replying.set(req.socket, res));
  server.on('clientError', (err: Error & { code?: string }, socket: Duplex) => {
    const reply = replying.get(socket);
    const replyBegun = reply !== undefined && reply.headersSent && !reply.writableFinished;
    if (socket.writable && !replyBegun) {
      const answer =
        err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
          ? raw(requestTimedOut(), 'Request Timeout')
          : (PARSER_REFUSALS[err.code ?? ''] ?? statusLine(400, 'Bad Request'));
      socket.write(answer);
    }
    socket.destroy();
  });
}
