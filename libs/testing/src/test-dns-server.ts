import { createSocket, RemoteInfo } from 'node:dgram';

/** A DNS server on loopback that answers A records for the names it is given, as a cluster's DNS would for a headless Service. */
export interface TestDnsServer {
  /** `127.0.0.1:<port>`, the authority of a `dns://127.0.0.1:<port>/name:port` gRPC target. */
  address: string;
  /** Sets the addresses `name` resolves to (a pod became ready, or left). */
  set(name: string, ipv4s: string[]): void;
  close(): Promise<void>;
}

const TYPE_A = 1;
const CLASS_IN = 1;

/** The question of a query: its name (lower case, no trailing dot), type, and where the question ends. */
function readQuestion(query: Buffer): { name: string; type: number; end: number } {
  const labels: string[] = [];
  let at = 12;
  while (query[at] !== 0) {
    labels.push(query.subarray(at + 1, at + 1 + query[at]).toString('ascii'));
    at += 1 + query[at];
  }
  return { name: labels.join('.').toLowerCase(), type: query.readUInt16BE(at + 1), end: at + 5 };
}

/** The reply to a query: the question echoed, and one A record (TTL 0) per address for an A question. */
function answer(query: Buffer, records: Map<string, string[]>): Buffer {
  const { name, type, end } = readQuestion(query);
  const known = records.get(name);
  const ips = type === TYPE_A ? (known ?? []) : [];
  const header = Buffer.alloc(12);
  query.copy(header, 0, 0, 2);
  header.writeUInt16BE(0x8180 | (known ? 0 : 3), 2); // response, recursion available; NXDOMAIN for an unknown name
  header.writeUInt16BE(1, 4);
  header.writeUInt16BE(ips.length, 6);
  const answers = ips.map((ip) => {
    const rr = Buffer.alloc(16);
    rr.writeUInt16BE(0xc00c, 0); // the name, as a pointer to the question's
    rr.writeUInt16BE(TYPE_A, 2);
    rr.writeUInt16BE(CLASS_IN, 4);
    rr.writeUInt32BE(0, 6);
    rr.writeUInt16BE(4, 10);
    ip.split('.').forEach((octet, i) => rr.writeUInt8(Number(octet), 12 + i));
    return rr;
  });
  return Buffer.concat([header, query.subarray(12, end), ...answers]);
}

/** Starts a UDP DNS server on 127.0.0.1 (a free port) with no names until `set`. */
export async function startTestDnsServer(): Promise<TestDnsServer> {
  const records = new Map<string, string[]>();
  const socket = createSocket('udp4');
  socket.on('message', (query: Buffer, peer: RemoteInfo) => {
    if (query.length < 17) return;
    socket.send(answer(query, records), peer.port, peer.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  return {
    address: `127.0.0.1:${socket.address().port}`,
    set: (name, ipv4s) => records.set(name.toLowerCase(), ipv4s),
    close: () => new Promise((resolve) => socket.close(() => resolve())),
  };
}
