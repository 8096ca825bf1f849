import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { quotaV1 } from '@gw/contracts';
import { ONEOF_DISPATCHING } from '../src';

/**
 * A call carried on quota.v1 EdgeCalls names its unary method by the case of the EdgeCall oneof
 * (ONEOF_DISPATCHING on the server, oneofWrapping on the client), so each oneof field must be
 * named as its method, hold that method's request, and have its answer under the same name in
 * EdgeAnswer with that method's response. A field named otherwise would be a call no server
 * could dispatch: this test says so before a deploy does.
 */
const PROTO = readFileSync(join(__dirname, '..', '..', '..', 'proto', 'quota', 'v1', 'quota.proto'), 'utf8');

const camel = (snake: string) => snake.replace(/_(\w)/g, (_m, c: string) => c.toUpperCase());
const lowerFirst = (name: string) => name[0].toLowerCase() + name.slice(1);

/** The fields of `oneof <oneof>` in `message <message>`: name (as ts-proto's $case) to type. */
function oneofFields(message: string, oneof: string): Map<string, string> {
  const body = new RegExp(`message ${message} \\{[\\s\\S]*?oneof ${oneof} \\{([^}]*)\\}`).exec(PROTO)?.[1];
  expect(body).toBeDefined();
  return new Map([...String(body).matchAll(/^\s*(\w+) (\w+) = \d+(?: \[[^\]]*\])?;/gm)].map((m) => [camel(m[2]), m[1]]));
}

/** Each rpc of the Quota service by its method key: its request and response types. */
const RPCS = new Map(
  [...PROTO.matchAll(/rpc (\w+)\((stream )?(\w+)\) returns \((stream )?(\w+)\)/g)]
    .filter((m) => !m[2] && !m[4])
    .map((m) => [lowerFirst(m[1]), { request: m[3], response: m[5] }]),
);

describe('quota.v1 EdgeCall and EdgeAnswer: the carried calls', () => {
  const calls = oneofFields('EdgeCall', 'request');
  const answers = oneofFields('EdgeAnswer', 'response');

  it("carries Admit, CountRequest and FinishRequest (and the older edge's AcquirePlace and ReserveFree)", () => {
    expect([...calls.keys()].sort()).toEqual(['acquirePlace', 'admit', 'countRequest', 'finishRequest', 'reserveFree']);
  });

  it('names each call as its unary method, holding its request; its answer under the same name, holding its response', () => {
    expect([...answers.keys()].sort()).toEqual([...calls.keys()].sort());
    for (const [key, requestType] of calls) {
      const method = quotaV1.QuotaService[key as keyof typeof quotaV1.QuotaService];
      expect({ key, unary: method !== undefined && !method.requestStream && !method.responseStream }).toEqual({ key, unary: true });
      expect({ key, request: requestType, response: answers.get(key) }).toEqual({ key, ...RPCS.get(key) });
    }
  });

  it('is dispatched by that name: what the wire carries comes back as the method key and its request', () => {
    const messages = quotaV1 as unknown as Record<string, { fromPartial(fields: object): unknown }>;
    for (const [key, requestType] of calls) {
      const request = { $case: key, value: messages[requestType].fromPartial({}) } as quotaV1.EdgeCall['request'];
      const bytes = quotaV1.EdgeCall.encode({ callId: 1, timeoutMs: 1, request, traceContext: {} }).finish();
      const decoded = quotaV1.EdgeCall.decode(bytes).request as { $case: string; value: unknown };
      expect(ONEOF_DISPATCHING.keyOf(decoded)).toBe(key);
      expect(ONEOF_DISPATCHING.valueOf(decoded)).toEqual(request?.value);
    }
  });
});
