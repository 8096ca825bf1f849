import { X509Certificate } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TLSSocket } from 'node:tls';
import { ChannelCredentials, credentials, status } from '@grpc/grpc-js';
import { healthV1, quotaV1 } from '@gw/contracts';
import { createCertificateAuthority, issueCertificate, KeyPairPem } from '@gw/dev-pki';
import { TRUST_DOMAIN } from '@gw/identity';
import { eventually, rawUnaryCall } from '@gw/testing';
import {
  clientChain,
  createLogger,
  GrpcSecurity,
  RpcClient,
  rpcClient,
  RpcHandlers,
  rpcService,
  RunningGrpcServer,
  serverChain,
  startGrpcServer,
} from '../src';

const DAY_MS = 86_400_000;
const DEADLINE_MS = 3000;

type Quota = RpcClient<quotaV1.QuotaClient, quotaV1.QuotaService>;

/**
 * A quota.v1.Quota server behind the real access check (contracts' METHOD_CALLERS), with real
 * certificates from a CA made for this file, and callers holding good, foreign, expired or no
 * certificates.
 */
describe('gRPC mutual TLS and the access check', () => {
  const root = mkdtempSync(join(tmpdir(), 'gw-mtls-'));
  const ca = createCertificateAuthority('test CA', 30);
  const foreignCa = createCertificateAuthority('another CA', 30);
  const logged: string[] = [];
  let server: RunningGrpcServer;
  let address: string;

  /** Writes a certificate folder (cert-manager's layout) and returns its settings. */
  const writeFolder = (name: string, pair: KeyPairPem, trusted: KeyPairPem = ca, refreshMs = 60_000): GrpcSecurity => {
    const dir = join(root, name);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'tls.crt'), pair.certPem);
    writeFileSync(join(dir, 'tls.key'), pair.keyPem);
    writeFileSync(join(dir, 'ca.crt'), trusted.certPem);
    return { kind: 'mtls', dir, refreshMs };
  };
  const issue = (identity: string, by = ca, validity?: { notBefore: Date; notAfter: Date }) =>
    issueCertificate(by, { identity, trustDomain: TRUST_DOMAIN, ...validity });
  const caller = (name: string, identity: string, by = ca) => writeFolder(name, issue(identity, by));

  const quotaClient = (security: GrpcSecurity, serverIdentity = 'quota-service') =>
    rpcClient(quotaV1.QuotaClient, address, security, serverIdentity, { timeoutMs: DEADLINE_MS, chain: clientChain() });
  const withQuota = async <T>(client: Quota, fn: (c: Quota) => Promise<T>): Promise<T> => {
    try {
      return await fn(client);
    } finally {
      client.close();
    }
  };
  const count = (client: Quota) => client.countRequest({ accountId: 'acct' });
  const setFreeTier = (client: Quota) => client.setFreeTierSettings({ paused: true });
  const renewLeases = (client: Quota) => client.renewLeases({ leases: [] });
  /** A client with the CA but the given client certificate (or none), bypassing our factory. */
  const rawClient = (creds: ChannelCredentials) =>
    new quotaV1.QuotaClient(address, creds, { 'grpc.ssl_target_name_override': 'quota-service' });

  beforeAll(async () => {
    const logger = createLogger('test', 'info', (line) => logged.push(line));
    const answer = async () => ({ allowed: true, limit: 30, remaining: 29, resetUnixSeconds: 60, retryAfterSeconds: 0, nowUnixMs: 0 });
    const handlers = {
      countRequest: answer,
      setFreeTierSettings: async () => ({ settings: undefined }),
      renewLeases: async () => ({ unknownRequestIds: [] }),
    } as unknown as RpcHandlers<quotaV1.QuotaService>;
    const security = writeFolder('quota-service', issueCertificate(ca, { identity: 'quota-service', trustDomain: TRUST_DOMAIN }), ca, 100);
    server = await startGrpcServer(
      { host: '127.0.0.1', port: 0, metricsPort: 0, security, maxConnectionAgeMs: 60_000 },
      [rpcService(quotaV1.QuotaService, handlers, serverChain(logger))],
      logger,
    );
    address = `127.0.0.1:${server.port}`;
  });

  afterAll(async () => {
    await server?.stop(1000);
    rmSync(root, { recursive: true, force: true });
  });

  it('answers a caller whose identity the method lists', async () => {
    await withQuota(quotaClient(caller('edge', 'edge')), async (c) => {
      expect(await count(c)).toMatchObject({ allowed: true });
      expect(await renewLeases(c)).toEqual({ unknownRequestIds: [] });
    });
  });

  it("reads a connection's client certificate once, not on every call", async () => {
    const reads = jest.spyOn(TLSSocket.prototype, 'getPeerCertificate');
    try {
      await withQuota(quotaClient(caller('edge-once', 'edge')), async (c) => {
        for (let i = 0; i < 5; i++) await count(c);
      });
      const byServer = reads.mock.contexts.filter((socket) => (socket as TLSSocket & { server?: unknown }).server !== undefined);
      expect(byServer.length).toBe(1);
    } finally {
      reads.mockRestore();
    }
  });

  it('refuses a known caller a method not listed for it with PERMISSION_DENIED, logged and counted', async () => {
    await withQuota(quotaClient(caller('chat-product', 'chat-product')), async (c) => {
      expect(await count(c)).toMatchObject({ allowed: true });
      await expect(setFreeTier(c)).rejects.toMatchObject({
        code: status.PERMISSION_DENIED,
        details: 'chat-product may not call /quota.v1.Quota/SetFreeTierSettings',
      });
      await expect(renewLeases(c)).rejects.toMatchObject({ code: status.PERMISSION_DENIED });
    });
    const refusals = logged.map((l) => JSON.parse(l)).filter((e) => e.msg === 'call refused' && e.caller === 'chat-product');
    expect(refusals.map((e) => e.method).sort()).toEqual(['/quota.v1.Quota/RenewLeases', '/quota.v1.Quota/SetFreeTierSettings']);
    const metrics = await (await fetch(`http://127.0.0.1:${server.metricsPort}/metrics`)).text();
    expect(metrics).toMatch(
      /grpc_server_refused_calls_total\{method="\/quota.v1.Quota\/SetFreeTierSettings",caller="chat-product",code="PERMISSION_DENIED"\} 1/,
    );
  });

  it('refuses a caller without a certificate with UNAUTHENTICATED, and keeps health open to it', async () => {
    const client = rawClient(credentials.createSsl(Buffer.from(ca.certPem)));
    try {
      await expect(rawUnaryCall(client.countRequest.bind(client), { accountId: 'acct' }, DEADLINE_MS)).rejects.toMatchObject({
        code: status.UNAUTHENTICATED,
      });
    } finally {
      client.close();
    }
    const health = new healthV1.HealthClient(address, credentials.createSsl(Buffer.from(ca.certPem)), {
      'grpc.ssl_target_name_override': 'quota-service',
    });
    try {
      expect(await rawUnaryCall(health.check.bind(health), { service: '' }, DEADLINE_MS)).toEqual({
        status: healthV1.HealthCheckResponse_ServingStatus.SERVING,
      });
    } finally {
      health.close();
    }
    expect(
      logged.some((l) => l.includes('"msg":"call refused"') && l.includes('"caller":"unknown"') && l.includes('"code":"UNAUTHENTICATED"')),
    ).toBe(true);
  });

  it('refuses a certificate signed by another CA with UNAUTHENTICATED', async () => {
    await withQuota(quotaClient(writeFolder('foreign-edge', issue('edge', foreignCa), ca)), async (c) => {
      await expect(count(c)).rejects.toMatchObject({ code: status.UNAUTHENTICATED });
    });
  });

  it('refuses an expired certificate with UNAUTHENTICATED', async () => {
    const expired = issue('edge', ca, { notBefore: new Date(Date.now() - 3 * DAY_MS), notAfter: new Date(Date.now() - DAY_MS) });
    await withQuota(quotaClient(writeFolder('expired-edge', expired)), async (c) => {
      await expect(count(c)).rejects.toMatchObject({ code: status.UNAUTHENTICATED });
    });
  });

  it('refuses to serve plain text on an address other than loopback, or without its certificate files', async () => {
    const silent = createLogger('test', 'error', () => undefined);
    const settings = { port: 0, metricsPort: 0, maxConnectionAgeMs: 1000 };
    await expect(startGrpcServer({ ...settings, host: '0.0.0.0', security: { kind: 'insecure' } }, [], silent)).rejects.toThrow(
      /only on a loopback address/,
    );
    await expect(
      startGrpcServer(
        { ...settings, host: '127.0.0.1', security: { kind: 'mtls', dir: join(root, 'missing'), refreshMs: 1000 } },
        [],
        silent,
      ),
    ).rejects.toThrow(/has no readable ca\.crt/);
  });

  it('cannot be reached in plain text', async () => {
    const client = rawClient(credentials.createInsecure());
    try {
      await expect(rawUnaryCall(client.countRequest.bind(client), { accountId: 'acct' }, DEADLINE_MS)).rejects.toMatchObject({
        code: status.UNAVAILABLE,
      });
    } finally {
      client.close();
    }
  });

  it('is refused by a client that expects another service, or does not trust its CA', async () => {
    await withQuota(quotaClient(caller('edge-2', 'edge'), 'billing-service'), async (c) => {
      await expect(count(c)).rejects.toMatchObject({ code: status.UNAVAILABLE });
    });
    await withQuota(quotaClient(writeFolder('edge-foreign-trust', issue('edge', foreignCa), foreignCa)), async (c) => {
      await expect(count(c)).rejects.toMatchObject({ code: status.UNAVAILABLE });
    });
  });

  it('uses a certificate replaced on disk for the next connection, without a restart', async () => {
    const presented = async () => {
      let serial = '';
      const creds = credentials.createSsl(Buffer.from(ca.certPem), null, null, {
        checkServerIdentity: (_host, cert) => {
          serial = new X509Certificate(cert.raw).serialNumber;
          return undefined;
        },
      });
      const health = new healthV1.HealthClient(address, creds, { 'grpc.ssl_target_name_override': 'quota-service' });
      try {
        await rawUnaryCall(health.check.bind(health), { service: '' }, DEADLINE_MS);
      } finally {
        health.close();
      }
      return serial;
    };
    const before = await presented();
    const renewed = issue('quota-service');
    writeFolder('quota-service', renewed, ca, 100);
    const renewedSerial = new X509Certificate(renewed.certPem).serialNumber;
    expect(before).not.toBe(renewedSerial);
    expect(await eventually(presented, (serial) => serial === renewedSerial, { timeoutMs: 5000, intervalMs: 100 })).toBe(renewedSerial);

    // A caller's own certificate is re-read too: chat-product becomes ctl in the same folder.
    const security = writeFolder('rotating', issue('chat-product'), ca, 100);
    await withQuota(quotaClient(security), async (c) => {
      await expect(setFreeTier(c)).rejects.toMatchObject({ code: status.PERMISSION_DENIED });
    });
    writeFolder('rotating', issue('ctl'), ca, 100);
    const asCtl = () => withQuota(quotaClient(security), (c) => setFreeTier(c).catch(() => 'refused' as const));
    expect(await eventually(asCtl, (answer) => answer !== 'refused', { timeoutMs: 5000, intervalMs: 100 })).toEqual({
      settings: undefined,
    });
  });
});
