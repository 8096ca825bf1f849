import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from './config';
import { runCtl } from './run-ctl';

/**
 * ctl pointed at services that are not there (nothing listens on port 9): a command that got as
 * far as calling one would answer UNAVAILABLE, so USAGE shows it was refused before any call.
 */
const config = loadConfig({
  GRPC_INSECURE: 'true',
  AUTH_ADDR: '127.0.0.1:9',
  QUOTA_ADDR: '127.0.0.1:9',
  BILLING_ADDR: '127.0.0.1:9',
  CONSOLE_ADDR: '127.0.0.1:9',
  CTL_TIMEOUT_MS: '2000',
});
const ctl = async (...argv: string[]) => {
  const { output, exitCode } = await runCtl(argv, config);
  return { exitCode, json: JSON.parse(output) as unknown };
};
/** A USAGE refusal: its message as given, or matching a pattern. */
const usage = (message: string | RegExp) => ({
  exitCode: 1,
  json: { error: { code: 'USAGE', message: typeof message === 'string' ? message : expect.stringMatching(message) } },
});

describe('runCtl refuses a wrong command line as USAGE, before calling anything', () => {
  it('refuses an empty idempotency key, which would be taken as none and make the change unprotected', async () => {
    expect(await ctl('balance', 'add', '--account', 'acct_1', '--amount', '5', '--idempotency-key', '')).toEqual(
      usage(/^--idempotency-key is empty/),
    );
  });

  it('refuses a balance change of 0, however it is written', async () => {
    for (const amount of ['0', '0.000000', '-0'])
      expect(await ctl('balance', 'add', '--account', 'acct_1', '--amount', amount)).toEqual(usage(/^--amount cannot be 0/));
  });

  it("refuses a flag the command does not take, listing the command's flags", async () => {
    expect(await ctl('audit', '--extra', '1')).toEqual(usage('unknown flag --extra; audit takes no flags'));
    expect(await ctl('balance', 'add', '--account', 'acct_1', '--amount', '1', '--idempotency', 'k')).toEqual(
      usage('unknown flag --idempotency; usage: balance add --account ID --amount LYD [--reason TEXT] [--idempotency-key K]'),
    );
    expect(await ctl('tls', 'init', '--directory', '/tmp/x')).toEqual(usage('unknown flag --directory; usage: tls init [--dir D]'));
  });

  it('refuses an archive file that cannot be written, before anything is read or dropped', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ctl-archive-'));
    try {
      const aFile = join(dir, 'a-file');
      writeFileSync(aFile, '');
      expect(await ctl('ledger', 'archive', '--before', '2020-01', '--to', '/no/such/dir/x.csv')).toEqual(
        usage('--to /no/such/dir/x.csv cannot be written: its directory does not exist'),
      );
      expect(await ctl('ledger', 'archive', '--before', '2020-01', '--to', join(aFile, 'x.csv'))).toEqual(usage(/cannot be written/));
      expect(await ctl('ledger', 'archive', '--before', '2020-01', '--to', dir)).toEqual(usage(/exists|is a directory/));
      expect(await ctl('ledger', 'archive', '--before', '2020-01', '--to', aFile)).toEqual(usage(/exists: it must name a new file/));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses a --dir where tls init cannot write its certificates', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ctl-tls-'));
    try {
      const aFile = join(dir, 'a-file');
      writeFileSync(aFile, '');
      expect(await ctl('tls', 'init', '--dir', join(aFile, 'tls'))).toEqual(usage(/^--dir .* cannot be written/));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses a statement file that cannot be written, read or checked with the key given, before asking for anything', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ctl-statement-'));
    try {
      const aFile = join(dir, 'a-file');
      writeFileSync(aFile, 'not a statement\n');
      expect(await ctl('statement', '--account', 'acct_1', '--month', '2026-01', '--to', '/no/such/dir/s.csv')).toEqual(
        usage('--to /no/such/dir/s.csv cannot be written: its directory does not exist'),
      );
      expect(await ctl('statement', '--account', 'acct_1', '--month', '2026-01', '--to', aFile)).toEqual(usage(/exists/));
      expect(await ctl('statement', 'verify')).toEqual(usage('FILE is required; usage: statement verify FILE [--key PEM_FILE]'));
      expect(await ctl('statement', 'verify', aFile, aFile)).toEqual(usage(/^unexpected argument/));
      expect(await ctl('statement', 'verify', join(dir, 'none.csv'))).toEqual(
        usage(`FILE ${join(dir, 'none.csv')} cannot be read: ENOENT`),
      );
      expect(await ctl('statement', 'verify', aFile, '--key', join(dir, 'none.pem'))).toEqual(usage(/^--key .* cannot be read: ENOENT$/));
      expect(await ctl('statement', 'verify', aFile, '--key', aFile)).toEqual(usage(`--key ${aFile} is not a PEM public key`));
      expect(await ctl('statement', 'verify', '--key', aFile)).toEqual(usage(/^FILE is required/));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('still reaches the service for a good command line (here: none is there)', async () => {
    expect(await ctl('balance', 'add', '--account', 'acct_1', '--amount', '-0.000001', '--idempotency-key', 'k1')).toEqual({
      exitCode: 1,
      json: { error: { code: 'UNAVAILABLE', message: expect.any(String) } },
    });
  });
});
