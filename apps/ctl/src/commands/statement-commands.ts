import { createPublicKey, KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { Metadata } from '@grpc/grpc-js';
import { billingV1 } from '@gw/contracts';
import { microToLyd } from '@gw/money';
import { checkStatement, StatementCheck, StatementReader, StatementSummary } from '@gw/statement';
import { CtlConfig } from '../config';
import { connectClients, CtlClients } from '../ctl-clients';
import { CtlUsageError } from '../parse-args';
import { Command, CtlCheckFailed, LocalCommand, required } from './command';
import { createNewFile } from './new-file';

/** How long reading a statement may take: a month of an account's requests. */
const READ_TIMEOUT_MS = 300_000;

/** A statement's summary as ctl prints it, amounts in LYD. */
const summaryOf = (s: StatementSummary) => ({
  accountId: s.accountId,
  month: s.month,
  status: s.status,
  opening: microToLyd(s.openingMicro),
  closing: microToLyd(s.closingMicro),
  movements: s.movements,
  totals: Object.fromEntries(Object.entries(s.totals).map(([kind, t]) => [kind, { count: t.count, amount: microToLyd(t.amountMicro) }])),
  keyId: s.keyId,
  sha256: s.sha256,
});

/** The summary of a statement that checks; one that does not is the refusal `{"error":{code,message}}` (exit 1). */
function checked(check: StatementCheck): ReturnType<typeof summaryOf> {
  if (!check.ok) throw new CtlCheckFailed({ error: { code: check.code, message: check.message } });
  return summaryOf(check.summary);
}

/** Reads the statement from billing-service, each part to `write` as it comes, and checks it (all but the signature). */
async function readStatement(c: CtlClients, accountId: string, month: string, write: (text: string) => Promise<void>) {
  const reader = new StatementReader();
  const call = c.billing.streams.readStatement({ accountId, month }, new Metadata(), {
    deadline: Date.now() + Math.max(c.timeoutMs, READ_TIMEOUT_MS),
  });
  for await (const part of call as AsyncIterable<billingV1.ReadStatementResponse>) {
    reader.push(part.text);
    await write(part.text);
  }
  return checked(reader.finish());
}

/**
 * `statement --account ID --month YYYY-MM [--to FILE]`: the account holder's signed statement of
 * the month (docs/statements.md), summed up; the file itself in `statement`, or written to a new
 * FILE (an existing one is left alone, a part-written one removed). billing-service keeps money
 * for any id, so an unknown account is refused here first (auth-service's NOT_FOUND).
 */
export const statement: Command = async (flags, c) => {
  const accountId = required(flags, 'account');
  const month = required(flags, 'month');
  const path = flags.get('to');
  if (path === undefined) {
    await c.auth.getAccount({ accountId });
    let text = '';
    const summary = await readStatement(c, accountId, month, async (part) => {
      text += part;
    });
    return { ...summary, statement: text };
  }
  const file = await createNewFile('to', path);
  try {
    let summary: ReturnType<typeof summaryOf>;
    try {
      await c.auth.getAccount({ accountId });
      summary = await readStatement(c, accountId, month, async (part) => {
        await file.write(part);
      });
      await file.sync();
    } finally {
      await file.close();
    }
    return { file: path, ...summary };
  } catch (err) {
    await rm(path, { force: true });
    throw err;
  }
};

/** `statement key`: the public key statements are signed with, for holders to check them. */
export const statementKey: Command = async (_flags, c) => {
  const { keyId, publicKeyPem } = await c.billing.getStatementKey({});
  return { keyId, publicKey: publicKeyPem };
};

function readFlagFile(flag: string, path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    throw new CtlUsageError(`${flag} ${path} cannot be read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
}

/** The key of --key (a PEM public key, as the console and `statement key` give it), else billing-service's. */
async function publicKeyOf(path: string | undefined, config: CtlConfig): Promise<KeyObject> {
  if (path === undefined) {
    const c = connectClients(config);
    try {
      return createPublicKey((await c.billing.getStatementKey({})).publicKeyPem);
    } finally {
      c.close();
    }
  }
  const pem = readFlagFile('--key', path);
  try {
    return createPublicKey(pem);
  } catch {
    throw new CtlUsageError(`--key ${path} is not a PEM public key`);
  }
}

/**
 * `statement verify FILE [--key PEM_FILE]`: whether a statement file is the one the service signed
 * (with the key of PEM_FILE, a holder's copy of the published key; else billing-service's own) and
 * adds up; else the refusal names what is wrong: STATEMENT_CHANGED, BAD_SIGNATURE, NOT_A_STATEMENT
 * or DOES_NOT_ADD_UP. With --key it reaches no service.
 */
export const statementVerify: LocalCommand = async (flags, config) => {
  const path = required(flags, 'file');
  const text = readFlagFile('FILE', path);
  return { ok: true, ...checked(checkStatement(text, await publicKeyOf(flags.get('key'), config))) };
};
