import { Metadata, status } from '@grpc/grpc-js';
import { quotaV1 } from '@gw/contracts';
import { DomainError } from '@gw/errors';
import { eventually, testTlsDir } from '@gw/testing';
import {
  CallStreamClient,
  callStreamHandler,
  carriedCalls,
  ClientCallContext,
  clientChain,
  createLogger,
  GrpcSecurity,
  oneofWrapping,
  ONEOF_DISPATCHING,
  RpcClient,
  rpcClient,
  RpcContext,
  RpcError,
  RpcHandlers,
  rpcService,
  RunningGrpcServer,
  serverChain,
  ServerMiddleware,
  startGrpcServer,
} from '../src';

const mtls = (identity: string): GrpcSecurity => ({ kind: 'mtls', dir: testTlsDir(identity), refreshMs: 60_000 });
const usage = (accountId: string): quotaV1.GetUsageResponse => ({ todayTokens: accountId.length, totalTokens: 100 });

class StoreDown extends Error {}

/**
 * The gRPC middleware, over real gRPC with mutual TLS: handlers are plain
 * async functions given a context named from the service definition; one server chain maps
 * errors, times and logs every call, unary or carried on a call stream; a client is one call
 * per method, with its deadline, through its own chain.
 */
describe('the server and client chains (rpcService, rpcClient)', () => {
  let server: RunningGrpcServer;
  let client: RpcClient<quotaV1.QuotaClient, quotaV1.QuotaService>;
  const logged: string[] = [];
  const contexts: RpcContext[] = [];
  /** What callerGone() said as each GetUsage began. */
  const goneWhenServed: boolean[] = [];
  const clientCalls: Pick<ClientCallContext, 'service' | 'method' | 'carried' | 'timeoutMs'>[] = [];
  /** Per account id: what the handler does. */
  const behaviour = new Map<string, () => Promise<void>>();

  /** A service's own step, nearest the handler: it sees the handler's own error, before the mapping. */
  const storeStep: ServerMiddleware = (request, context, next) =>
    next(request, context).catch((err: unknown) => {
      throw err instanceof StoreDown ? new RpcError(status.UNAVAILABLE, 'store down') : err;
    });

  beforeAll(async () => {
    const logger = createLogger('test', 'debug', (line) => logged.push(line));
    const usageOf = async ({ accountId }: quotaV1.GetUsageRequest, context: RpcContext) => {
      contexts.push(context);
      goneWhenServed.push(context.callerGone());
      await behaviour.get(accountId)?.();
      return usage(accountId);
    };
    // A handler that throws before it returns a promise.
    const getUsage = (request: quotaV1.GetUsageRequest, context: RpcContext) => {
      if (request.accountId === 'acct-throws') throw new RpcError(status.INVALID_ARGUMENT, 'thrown at once');
      return usageOf(request, context);
    };
    const countRequest = async ({ accountId }: quotaV1.CountRequestRequest, context: RpcContext) => {
      contexts.push(context);
      return { allowed: true, limit: 30, remaining: accountId.length, resetUnixSeconds: 60, retryAfterSeconds: 0, nowUnixMs: 0 };
    };
    // Two methods are enough here; a service's own object must have them all (RpcHandlers).
    const handlers = { getUsage, countRequest } as unknown as RpcHandlers<quotaV1.QuotaService>;
    const served = rpcService(quotaV1.QuotaService, handlers, serverChain(logger, [storeStep]), (methods) => ({
      edgeCalls: callStreamHandler('EdgeCalls', methods, ONEOF_DISPATCHING),
    }));
    server = await startGrpcServer(
      { host: '127.0.0.1', port: 0, metricsPort: 0, security: mtls('quota-service'), maxConnectionAgeMs: 60_000 },
      [served],
      logger,
    );
    const recordCall = (request: unknown, context: ClientCallContext, next: (r: unknown, c: ClientCallContext) => Promise<unknown>) => {
      clientCalls.push({ service: context.service, method: context.method, carried: context.carried, timeoutMs: context.timeoutMs });
      return next(request, context);
    };
    client = rpcClient(quotaV1.QuotaClient, `127.0.0.1:${server.port}`, mtls('edge'), 'quota-service', {
      timeoutMs: 2000,
      chain: clientChain([recordCall]),
    });
  });

  afterAll(async () => {
    client.close();
    await server.stop(1000);
  });

  const metrics = async () => (await fetch(`http://127.0.0.1:${server.metricsPort}/metrics`)).text();

  it('answers a one-line call; the handler gets its request and a context named from the definition, with the metadata sent', async () => {
    const metadata = new Metadata();
    metadata.set('x-probe', 'seen');
    expect(await client.getUsage({ accountId: 'acct-ok' }, { metadata })).toEqual(usage('acct-ok'));
    const context = contexts.at(-1);
    expect(context).toMatchObject({ service: 'quota.v1.Quota', method: 'GetUsage' });
    expect(context?.metadata.get('x-probe')).toEqual(['seen']);
    expect(goneWhenServed.at(-1)).toBe(false);
    expect(clientCalls.at(-1)).toEqual({ service: 'quota.v1.Quota', method: 'GetUsage', carried: false, timeoutMs: 2000 });
    expect(await metrics()).toMatch(/grpc_server_handling_seconds_count\{method="GetUsage",code="OK"\} [1-9]/);
    expect(logged.some((l) => l.includes('"msg":"call served"') && l.includes('"method":"GetUsage"') && l.includes('"code":"OK"'))).toBe(
      true,
    );
  });

  it.each([
    [
      'an RpcError keeps its status and message',
      new RpcError(status.FAILED_PRECONDITION, 'refused on purpose'),
      status.FAILED_PRECONDITION,
      'refused on purpose',
    ],
    ['a domain refusal takes its kind’s status', new DomainError('not-found', 'no such account'), status.NOT_FOUND, 'no such account'],
    ['the service’s own step maps its store’s failure', new StoreDown('redis gone'), status.UNAVAILABLE, 'store down'],
    ['anything else is INTERNAL without its text', new Error('secret: hunter2'), status.INTERNAL, 'internal error'],
  ])('fails a call once, by the chain’s mapping: %s', async (_name, thrown, code, details) => {
    behaviour.set('acct-fails', () => Promise.reject(thrown));
    await expect(client.getUsage({ accountId: 'acct-fails' })).rejects.toMatchObject({ code, details });
    expect(await metrics()).toMatch(new RegExp(`grpc_server_handling_seconds_count\\{method="GetUsage",code="${status[code]}"\\} [1-9]`));
  });

  it('fails a call whose handler throws before returning its promise as one that rejects', async () => {
    await expect(client.getUsage({ accountId: 'acct-throws' })).rejects.toMatchObject({
      code: status.INVALID_ARGUMENT,
      details: 'thrown at once',
    });
  });

  it('logs an unexpected error with its method, never sending its text', () => {
    expect(logged.some((l) => l.includes('"msg":"rpc failed"') && l.includes('"method":"GetUsage"') && l.includes('hunter2'))).toBe(true);
  });

  it('fails a call past its deadline with DEADLINE_EXCEEDED, a deadline the call may set; the handler then sees its caller gone', async () => {
    let gone: boolean | undefined;
    behaviour.set('acct-slow', async () => {
      // A handler slower than the call's deadline is the scenario.
      await new Promise((r) => setTimeout(r, 300));
      gone = contexts.at(-1)?.callerGone();
    });
    await expect(client.getUsage({ accountId: 'acct-slow' }, { timeoutMs: 100 })).rejects.toMatchObject({ code: status.DEADLINE_EXCEEDED });
    expect(clientCalls.at(-1)?.timeoutMs).toBe(100);
    expect(
      await eventually(
        () => gone,
        (seen) => seen !== undefined,
      ),
    ).toBe(true);
  });

  it('serves a call carried on a call stream through the same chains, under its unary method’s name', async () => {
    const streams = new CallStreamClient<quotaV1.EdgeCall['request'], quotaV1.EdgeAnswer['response']>(() => client.streams.edgeCalls(), {
      streams: 1,
      rotateMs: 60_000,
    });
    try {
      const carried = carriedCalls(quotaV1.QuotaService, ['countRequest'], streams, oneofWrapping(), {
        timeoutMs: 2000,
        chain: clientChain([
          (request, context, next) => {
            clientCalls.push({ service: context.service, method: context.method, carried: context.carried, timeoutMs: context.timeoutMs });
            return next(request, context);
          },
        ]),
      });
      expect(await carried.countRequest({ accountId: 'acct-4' })).toMatchObject({ allowed: true, remaining: 6 });
      expect(clientCalls.at(-1)).toEqual({ service: 'quota.v1.Quota', method: 'CountRequest', carried: true, timeoutMs: 2000 });
      expect(contexts.at(-1)).toMatchObject({ service: 'quota.v1.Quota', method: 'CountRequest' });
      expect(await metrics()).toMatch(/grpc_server_handling_seconds_count\{method="CountRequest",code="OK"\} [1-9]/);
      // A call naming no method is refused under the stream's name.
      await expect(streams.call(undefined, 2000)).rejects.toMatchObject({
        code: status.INVALID_ARGUMENT,
        details: 'a call without a request',
      });
      expect(await metrics()).toMatch(/grpc_server_handling_seconds_count\{method="EdgeCalls",code="INVALID_ARGUMENT"\} [1-9]/);
    } finally {
      streams.close();
    }
  });
});
