import { status, UntypedServiceImplementation } from '@grpc/grpc-js';
import { quotaV1 } from '@gw/contracts';
import { eventually, testTlsDir } from '@gw/testing';
import {
  CallStreamClient,
  callStreamHandler,
  ChainedMethods,
  createLogger,
  drainCallStreams,
  GrpcSecurity,
  grpcClient,
  ONEOF_DISPATCHING,
  RpcContext,
  RpcError,
  serverChain,
  RunningGrpcServer,
  startGrpcServer,
} from '../src';

type EdgeRequest = quotaV1.EdgeCall['request'];
type EdgeResponse = quotaV1.EdgeAnswer['response'];

const mtls = (identity: string): GrpcSecurity => ({ kind: 'mtls', dir: testTlsDir(identity), refreshMs: 60_000 });
const count = (accountId: string): EdgeRequest => ({ $case: 'countRequest', value: { accountId } });
const countOf = (remaining: number): quotaV1.CountRequestResponse => ({
  allowed: true,
  limit: 30,
  remaining,
  resetUnixSeconds: 60,
  retryAfterSeconds: 0,
  nowUnixMs: 0,
});
const counted = (remaining: number): EdgeResponse => ({ $case: 'countRequest', value: countOf(remaining) });

/**
 * Unary calls carried on quota.v1 EdgeCalls streams, over real gRPC with mutual TLS: answers
 * matched to their calls, errors as the unary method's statuses, deadlines, callers gone, a
 * stream that fails, and streams that take new calls for a while only.
 */
describe('call streams (CallStreamClient and callStreamHandler)', () => {
  let server: RunningGrpcServer;
  let quota: quotaV1.QuotaClient;
  const logged: string[] = [];
  /** Every stream the server has seen, with the calls each carried and whether the client ended it. */
  const streams: { calls: number; ended: boolean }[] = [];
  /** Per account id: how long to wait before answering, and what the callerGone check said then. */
  const slow = new Map<string, number>();
  const goneSeen = new Map<string, boolean>();

  beforeAll(async () => {
    const logger = createLogger('test', 'info', (line) => logged.push(line));
    const methods = new ChainedMethods(
      quotaV1.QuotaService,
      {
        countRequest: async ({ accountId }: quotaV1.CountRequestRequest, context: RpcContext) => {
          const wait = slow.get(accountId);
          // A slow answer is the scenario: the call stays running on its stream meanwhile.
          if (wait) await new Promise((r) => setTimeout(r, wait));
          goneSeen.set(accountId, context.callerGone());
          if (accountId === 'refuse') throw new RpcError(status.FAILED_PRECONDITION, 'refused on purpose');
          if (accountId === 'crash') throw new Error('secret: hunter2');
          return countOf(Number(accountId.replace(/\D/g, '') || 0));
        },
      },
      serverChain(logger),
    );
    const handler = callStreamHandler('EdgeCalls', methods, ONEOF_DISPATCHING);
    const implementation = {
      edgeCalls: (call: Parameters<typeof handler>[0]) => {
        const seen = { calls: 0, ended: false };
        streams.push(seen);
        call.on('data', (batch: quotaV1.EdgeCallsRequest) => (seen.calls += batch.calls.length));
        call.on('end', () => (seen.ended = true));
        handler(call);
      },
    };
    server = await startGrpcServer(
      { host: '127.0.0.1', port: 0, metricsPort: 0, security: mtls('quota-service'), maxConnectionAgeMs: 60_000 },
      [
        {
          name: 'quota.v1.Quota',
          definition: quotaV1.QuotaService,
          implementation: implementation as unknown as UntypedServiceImplementation,
        },
      ],
      logger,
    );
    quota = grpcClient(quotaV1.QuotaClient, `127.0.0.1:${server.port}`, mtls('edge'), 'quota-service');
  });

  afterAll(async () => {
    quota.close();
    await server.stop(1000);
  });

  const newClient = (settings = { streams: 2, rotateMs: 60_000 }) =>
    new CallStreamClient<EdgeRequest, EdgeResponse>(() => quota.edgeCalls(), settings);

  it('answers each call with its own response, the calls of one moment sharing a message', async () => {
    const client = newClient({ streams: 1, rotateMs: 60_000 });
    const before = streams.length;
    try {
      const answers = await Promise.all([1, 2, 3, 4, 5].map((n) => client.call(count(`acct-${n}`), 2000)));
      expect(answers).toEqual([1, 2, 3, 4, 5].map(counted));
      expect(streams.slice(before)).toEqual([{ calls: 5, ended: false }]);
    } finally {
      client.close();
    }
  });

  it('fails a call as its unary method would: the RpcError status kept, any other error INTERNAL without its text', async () => {
    const client = newClient();
    try {
      await expect(client.call(count('refuse'), 2000)).rejects.toMatchObject({
        code: status.FAILED_PRECONDITION,
        details: 'refused on purpose',
      });
      await expect(client.call(count('crash'), 2000)).rejects.toMatchObject({ code: status.INTERNAL, details: 'internal error' });
      expect(await client.call(count('after-9'), 2000)).toEqual(counted(9));
      expect(logged.some((l) => l.includes('hunter2') && l.includes('"method":"CountRequest"'))).toBe(true);
      const metrics = await (await fetch(`http://127.0.0.1:${server.metricsPort}/metrics`)).text();
      expect(metrics).toMatch(/grpc_server_handling_seconds_count\{method="CountRequest",code="FAILED_PRECONDITION"\} [1-9]/);
    } finally {
      client.close();
    }
  });

  it('fails a call not answered within its deadline with DEADLINE_EXCEEDED, and the server sees its caller gone', async () => {
    slow.set('late', 400);
    const client = newClient();
    try {
      await expect(client.call(count('late'), 150)).rejects.toMatchObject({ code: status.DEADLINE_EXCEEDED });
      expect(
        await eventually(
          () => goneSeen.get('late'),
          (seen) => seen !== undefined,
        ),
      ).toBe(true);
      // The stream is still good for the next call.
      expect(await client.call(count('next-3'), 2000)).toEqual(counted(3));
    } finally {
      client.close();
    }
  });

  it('takes new calls on a stream for rotateMs only, and ends the old one once its calls are answered', async () => {
    slow.set('slow-7', 300);
    const client = newClient({ streams: 1, rotateMs: 100 });
    const before = streams.length;
    try {
      const first = client.call(count('slow-7'), 2000);
      // Time itself is the scenario: past rotateMs, the next call goes on a new stream.
      await new Promise((r) => setTimeout(r, 150));
      expect(await client.call(count('b-8'), 2000)).toEqual(counted(8));
      expect(await first).toEqual(counted(7));
      await eventually(() => streams[before].ended);
      expect(streams.slice(before)).toEqual([
        { calls: 1, ended: true },
        { calls: 1, ended: false },
      ]);
    } finally {
      client.close();
    }
  });

  it('fails the unanswered calls of a stream that breaks with its status, and opens a new stream for the next call', async () => {
    slow.set('stuck', 600);
    let opened = 0;
    const breaking = new CallStreamClient<EdgeRequest, EdgeResponse>(
      () => {
        const call = quota.edgeCalls();
        opened++;
        if (opened === 1) setTimeout(() => call.cancel(), 100);
        return call;
      },
      { streams: 1, rotateMs: 60_000 },
    );
    try {
      await expect(breaking.call(count('stuck'), 5000)).rejects.toMatchObject({ code: status.CANCELLED });
      expect(await breaking.call(count('again-4'), 2000)).toEqual(counted(4));
      expect(opened).toBe(2);
    } finally {
      breaking.close();
    }
  });

  it('ends its streams when the server drains, once their running calls are answered; the next call opens a new stream', async () => {
    slow.set('draining-6', 300);
    const client = newClient({ streams: 1, rotateMs: 60_000 });
    try {
      expect(await client.call(count('warm-1'), 2000)).toEqual(counted(1));
      const opened = streams.length;
      const running = client.call(count('draining-6'), 2000);
      await eventually(() => streams[opened - 1].calls === 2);
      drainCallStreams();
      expect(await running).toEqual(counted(6));
      // The client hears the stream's end (its status) a moment later; nothing outside the client shows it.
      await new Promise((r) => setTimeout(r, 50));
      expect(await client.call(count('after-2'), 2000)).toEqual(counted(2));
      expect(streams.length).toBe(opened + 1);
    } finally {
      client.close();
    }
  });

  it('sends a call that reached a draining stream once more, on a new stream, and it is answered there', async () => {
    slow.set('draining-7', 300);
    const client = newClient({ streams: 1, rotateMs: 60_000 });
    try {
      expect(await client.call(count('warm-1'), 2000)).toEqual(counted(1));
      const opened = streams.length;
      const running = client.call(count('draining-7'), 2000);
      await eventually(() => streams[opened - 1].calls === 2);
      drainCallStreams();
      // The stream is still open (a call runs on it): this call reaches it, is refused unserved, and goes again.
      expect(await client.call(count('moved-3'), 2000)).toEqual(counted(3));
      expect(await running).toEqual(counted(7));
      expect(streams.length).toBe(opened + 1);
    } finally {
      client.close();
    }
  });

  it('fails calls at once after close', async () => {
    const client = newClient();
    client.close();
    await expect(client.call(count('x'), 1000)).rejects.toMatchObject({ code: status.UNAVAILABLE });
  });
});
