import { createServer, Server as HttpServer } from 'node:http';
import { AddressInfo } from 'node:net';
import { Server as GrpcServer, ServerCredentials, ServerUnaryCall, sendUnaryData } from '@grpc/grpc-js';
import { eventually } from './eventually';

/** One span as an OTLP exporter sent it (the JSON encoding of OTLP/HTTP). */
export interface ReceivedSpan {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  /** OTLP's SpanKind: 1 internal, 2 server, 3 client. */
  kind: number;
  attributes: Record<string, unknown>;
  links: { traceId: string; spanId: string }[];
}

/** An export as it arrived: over which protocol, and (for http/json) its spans. */
export interface ReceivedExport {
  protocol: 'grpc' | 'http/protobuf' | 'http/json';
  bytes: number;
}

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
  doubleValue?: number;
}
interface OtlpAttribute {
  key: string;
  value: OtlpValue;
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: OtlpAttribute[];
  links?: { traceId: string; spanId: string }[];
}
interface OtlpTraces {
  resourceSpans?: { resource?: { attributes?: OtlpAttribute[] }; scopeSpans?: { spans?: OtlpSpan[] }[] }[];
}

/** OTLP/JSON ids are hex; a base64 id (the protobuf JSON mapping) is turned into hex too. */
const hexId = (id: string | undefined): string =>
  !id ? '' : /^[0-9a-f]+$/i.test(id) ? id.toLowerCase() : Buffer.from(id, 'base64').toString('hex');

const valueOf = (value: OtlpValue): unknown =>
  value.stringValue ?? (value.intValue !== undefined ? Number(value.intValue) : (value.boolValue ?? value.doubleValue));

const attributesOf = (attributes: OtlpAttribute[] = []): Record<string, unknown> =>
  Object.fromEntries(attributes.map((a) => [a.key, valueOf(a.value)]));

function spansOf(body: OtlpTraces): ReceivedSpan[] {
  return (body.resourceSpans ?? []).flatMap((resourceSpans) => {
    const service = String(attributesOf(resourceSpans.resource?.attributes)['service.name'] ?? '');
    return (resourceSpans.scopeSpans ?? []).flatMap((scope) =>
      (scope.spans ?? []).map((span) => ({
        service,
        traceId: hexId(span.traceId),
        spanId: hexId(span.spanId),
        parentSpanId: hexId(span.parentSpanId),
        name: span.name,
        kind: span.kind,
        attributes: attributesOf(span.attributes),
        links: (span.links ?? []).map((link) => ({ traceId: hexId(link.traceId), spanId: hexId(link.spanId) })),
      })),
    );
  });
}

/**
 * An OpenTelemetry collector for tests, on loopback: OTLP/HTTP at `httpEndpoint` (JSON exports
 * are decoded into `spans`; protobuf ones are counted) and OTLP/gRPC at `grpcEndpoint` (counted).
 */
export class OtlpReceiver {
  readonly spans: ReceivedSpan[] = [];
  readonly exports: ReceivedExport[] = [];
  httpEndpoint = '';
  grpcEndpoint = '';
  private readonly http: HttpServer;
  private readonly grpc = new GrpcServer();

  private constructor() {
    this.http = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const body = Buffer.concat(chunks);
        const json = (req.headers['content-type'] ?? '').includes('json');
        this.exports.push({ protocol: json ? 'http/json' : 'http/protobuf', bytes: body.length });
        if (json && req.url === '/v1/traces') this.spans.push(...spansOf(JSON.parse(body.toString('utf8')) as OtlpTraces));
        res.writeHead(200, { 'content-type': json ? 'application/json' : 'application/x-protobuf' });
        res.end(json ? '{}' : '');
      });
    });
  }

  static async start(): Promise<OtlpReceiver> {
    const receiver = new OtlpReceiver();
    await new Promise<void>((resolve) => receiver.http.listen(0, '127.0.0.1', resolve));
    receiver.httpEndpoint = `http://127.0.0.1:${(receiver.http.address() as AddressInfo).port}`;
    const raw = (b: Buffer) => b;
    receiver.grpc.addService(
      {
        Export: {
          path: '/opentelemetry.proto.collector.trace.v1.TraceService/Export',
          requestStream: false,
          responseStream: false,
          requestSerialize: raw,
          requestDeserialize: raw,
          responseSerialize: raw,
          responseDeserialize: raw,
        },
      },
      {
        Export: (call: ServerUnaryCall<Buffer, Buffer>, callback: sendUnaryData<Buffer>) => {
          receiver.exports.push({ protocol: 'grpc', bytes: call.request.length });
          callback(null, Buffer.alloc(0));
        },
      },
    );
    const port = await new Promise<number>((resolve, reject) =>
      receiver.grpc.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (err, bound) => (err ? reject(err) : resolve(bound))),
    );
    receiver.grpcEndpoint = `http://127.0.0.1:${port}`;
    return receiver;
  }

  /** Waits until `found` holds for the spans received (polling), or fails after `timeoutMs`. */
  async waitFor<T>(found: (spans: ReceivedSpan[]) => T | undefined, what: string, timeoutMs = 15_000): Promise<T> {
    const result = await eventually(
      () => found(this.spans),
      (r) => r !== undefined,
      { timeoutMs, intervalMs: 100, what: `${what} among the spans received` },
    );
    return result as T;
  }

  async stop(): Promise<void> {
    this.grpc.forceShutdown();
    await new Promise<void>((resolve) => this.http.close(() => resolve()));
  }
}
