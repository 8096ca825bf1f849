import { resolve } from 'node:path';
import { loadConfig } from './config';

describe('loadConfig', () => {
  it('has a default beside every variable', () => {
    expect(loadConfig({})).toEqual({
      host: '0.0.0.0',
      port: 50053,
      metricsPort: 9103,
      security: { kind: 'mtls', dir: resolve('.data/tls/billing-service'), refreshMs: 60_000 },
      maxConnectionAgeMs: 60_000,
      databaseUrl: undefined,
      dataDir: '.data/billing',
      holdTtlSeconds: 900,
      holdSweepIntervalMs: 60000,
      priceAckTimeoutMs: 5000,
      moneyAuditIntervalMs: 600_000,
      holderEventsPollMs: 5000,
      filingWindow: { lateWindowMs: 90_000_000, aheadMs: 300_000 },
      pricePropagationMs: 30_000,
      auditKey: { value: undefined, file: '.data/audit.key' },
      auditCheckpointIntervalMs: 600_000,
      auditUnkeyedEntries: 0,
      shutdownGraceMs: 10000,
      logLevel: 'info',
    });
  });

  it('reads the environment and freezes the result', () => {
    const config = loadConfig({
      BILLING_PORT: '0',
      DATA_DIR: '/var/lib/gw',
      HOLD_TTL_SECONDS: '60',
      HOLD_SWEEP_INTERVAL_MS: '500',
      PRICE_ACK_TIMEOUT_MS: '250',
      DATABASE_URL: 'postgres://db/gw',
      BILL_LATE_WINDOW_MS: '172800000',
      BILL_AHEAD_MS: '60000',
      PRICE_PROPAGATION_MS: '2000',
    });
    expect(config).toMatchObject({
      filingWindow: { lateWindowMs: 172_800_000, aheadMs: 60_000 },
      pricePropagationMs: 2000,
      port: 0,
      dataDir: '/var/lib/gw/billing',
      holdTtlSeconds: 60,
      holdSweepIntervalMs: 500,
      priceAckTimeoutMs: 250,
      databaseUrl: 'postgres://db/gw',
    });
    expect(Object.isFrozen(config)).toBe(true);
  });

  it('stops on a number that is not one', () => {
    expect(() => loadConfig({ HOLD_TTL_SECONDS: '15m' })).toThrow(/HOLD_TTL_SECONDS/);
  });
});
