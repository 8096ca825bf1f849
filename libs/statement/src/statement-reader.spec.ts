import { createHash, createPublicKey, generateKeyPairSync, KeyObject } from 'node:crypto';
import { checkStatement, StatementReader } from './statement-reader';
import { signatureLine, signingKeyFromSeed, statementKeyId } from './statement-signature';
import { StatementHead, StatementMovement, StatementWriter } from './statement-writer';

const KEY = signingKeyFromSeed('5e'.repeat(32));
const HEAD: StatementHead = { accountId: 'acct_1', month: '2026-01', status: 'final', openingMicro: 10_000_000 };
const MOVEMENTS: StatementMovement[] = [
  { time: '2026-01-03T09:00:00.000000Z', kind: 'top-up', amountMicro: 5_000_000, note: 'invoice 7, "paid"' },
  {
    time: '2026-01-04T10:11:12.123456Z',
    kind: 'charge',
    requestId: 'req_a',
    model: 'vendor-v4-flash',
    promptTokens: 1000,
    completionTokens: 500,
    inputMicroPerMillion: 1_000_000,
    outputMicroPerMillion: 4_000_000,
    usage: 'reported',
    endReason: 'complete',
    paid: true,
    amountMicro: -3000,
    shortfallMicro: 0,
  },
  {
    time: '2026-01-05T00:00:00.000001Z',
    kind: 'charge',
    requestId: 'req_b',
    model: 'vendor-v4-pro',
    promptTokens: 10,
    completionTokens: 620,
    inputMicroPerMillion: 4_000_000,
    outputMicroPerMillion: 16_000_000,
    usage: 'estimated',
    endReason: 'recovered',
    paid: true,
    amountMicro: -9960,
    shortfallMicro: 0,
  },
  {
    time: '2026-01-05T00:02:00.000000Z',
    kind: 'estimate-corrected',
    requestId: 'req_b',
    promptTokens: 10,
    completionTokens: 400,
    usage: 'reported',
    amountMicro: 3520,
    shortfallMicro: 0,
  },
  {
    time: '2026-01-06T08:00:00.000000Z',
    kind: 'charge',
    requestId: 'req_c',
    model: 'vendor-v4-flash',
    promptTokens: 20,
    completionTokens: 30,
    inputMicroPerMillion: 0,
    outputMicroPerMillion: 0,
    usage: 'reported',
    endReason: 'caller-left',
    paid: false,
    amountMicro: 0,
    shortfallMicro: 0,
  },
  { time: '2026-01-31T23:59:59.999999Z', kind: 'operator-correction', amountMicro: -1_000_000, note: 'refund of invoice 7' },
];

/** The statement's lines, signed as billing-service signs them: the SHA-256 of every line before the signature row. */
function signed(head: StatementHead, movements: StatementMovement[], key: KeyObject = KEY): string {
  const writer = new StatementWriter(head);
  const body = [...writer.opening(), ...movements.map((m) => writer.movement(m)), writer.closing()].map((l) => `${l}\n`).join('');
  return `${body}${signatureLine(head, createHash('sha256').update(body).digest(), key)}\n`;
}

const lines = (text: string) => text.split('\n');
const withLines = (text: string, edit: (lines: string[]) => string[]) => edit(lines(text)).join('\n');

describe('a statement file', () => {
  const text = signed(HEAD, MOVEMENTS);

  it('is a header, the opening, a row per movement with the balance after it, the closing and the signature, in LYD of 6 decimals', () => {
    expect(lines(text).slice(0, -2)).toEqual([
      'account,month,time,kind,request_id,model,prompt_tokens,completion_tokens,input_lyd_per_million,output_lyd_per_million,usage,end_reason,paid,amount_lyd,shortfall_lyd,balance_lyd,note',
      'acct_1,2026-01,2026-01-01T00:00:00.000000Z,opening,,,,,,,,,,,,10.000000,final',
      'acct_1,2026-01,2026-01-03T09:00:00.000000Z,top-up,,,,,,,,,,5.000000,,15.000000,"invoice 7, ""paid"""',
      'acct_1,2026-01,2026-01-04T10:11:12.123456Z,charge,req_a,vendor-v4-flash,1000,500,1.000000,4.000000,reported,complete,paid,-0.003000,0.000000,14.997000,',
      'acct_1,2026-01,2026-01-05T00:00:00.000001Z,charge,req_b,vendor-v4-pro,10,620,4.000000,16.000000,estimated,recovered,paid,-0.009960,0.000000,14.987040,',
      'acct_1,2026-01,2026-01-05T00:02:00.000000Z,estimate-corrected,req_b,,10,400,,,reported,,,0.003520,0.000000,14.990560,',
      'acct_1,2026-01,2026-01-06T08:00:00.000000Z,charge,req_c,vendor-v4-flash,20,30,0.000000,0.000000,reported,caller-left,free,0.000000,0.000000,14.990560,',
      'acct_1,2026-01,2026-01-31T23:59:59.999999Z,operator-correction,,,,,,,,,,-1.000000,,13.990560,refund of invoice 7',
      'acct_1,2026-01,2026-02-01T00:00:00.000000Z,closing,,,,,,,,,,,,13.990560,final',
    ]);
    expect(lines(text).at(-2)).toMatch(
      /^acct_1,2026-01,,signature,(,){12}ed25519 key=[0-9a-f]{16} sha256=[0-9a-f]{64} sig=[A-Za-z0-9+/]{86}==$/,
    );
    expect(lines(text).at(-1)).toBe('');
    // Nothing in it depends on when it was made: the same books give the same bytes, signature included.
    expect(signed(HEAD, MOVEMENTS)).toBe(text);
  });

  it('checks with the public key of the key that signed it, and says what it comes to', () => {
    expect(checkStatement(text, createPublicKey(KEY))).toEqual({
      ok: true,
      summary: {
        accountId: 'acct_1',
        month: '2026-01',
        status: 'final',
        openingMicro: 10_000_000,
        closingMicro: 13_990_560,
        movements: 6,
        totals: {
          'top-up': { count: 1, amountMicro: 5_000_000 },
          charge: { count: 3, amountMicro: -12_960 },
          'estimate-corrected': { count: 1, amountMicro: 3520 },
          'operator-correction': { count: 1, amountMicro: -1_000_000 },
        },
        keyId: statementKeyId(KEY),
        sha256: createHash('sha256')
          .update(lines(text).slice(0, -2).join('\n') + '\n')
          .digest('hex'),
      },
    });
  });

  it('checks the same pushed in pieces cut anywhere, and keeps the first movements asked for', () => {
    const reader = new StatementReader(2);
    for (let at = 0; at < text.length; at += 7) reader.push(text.slice(at, at + 7));
    expect(reader.finish(KEY)).toEqual(checkStatement(text, KEY));
    expect(reader.movements.map((r) => [r.kind, r.request_id, r.balance_lyd])).toEqual([
      ['top-up', '', '15.000000'],
      ['charge', 'req_a', '14.997000'],
    ]);
  });

  it('fails as changed when a line is changed, even one that moves no money', () => {
    const changed = withLines(text, (l) => l.map((line) => line.replace('vendor-v4-pro', 'vendor-v4-flash')));
    expect(checkStatement(changed, KEY)).toEqual({
      ok: false,
      code: 'STATEMENT_CHANGED',
      message: expect.stringMatching(/^its lines are not the lines signed/),
    });
  });

  it('fails as changed when a charge is dropped, and says where the balance stops following', () => {
    const dropped = withLines(text, (l) => l.filter((line) => !line.includes(',req_a,')));
    expect(checkStatement(dropped, KEY)).toEqual({
      ok: false,
      code: 'STATEMENT_CHANGED',
      message: expect.stringContaining('line 4: the balance 14.987040 does not follow from the one before and -0.009960 (14.990040)'),
    });
  });

  it('fails as changed when its line ends are changed (CRLF)', () => {
    expect(checkStatement(text.replaceAll('\n', '\r\n'), KEY)).toMatchObject({ ok: false, code: 'STATEMENT_CHANGED' });
  });

  it('fails on a signature of another key, and on a signature that is not the key’s', () => {
    const other = generateKeyPairSync('ed25519').privateKey;
    expect(checkStatement(signed(HEAD, MOVEMENTS, other), KEY)).toEqual({
      ok: false,
      code: 'BAD_SIGNATURE',
      message: `it says it is signed with key ${statementKeyId(other)}, not with the key given (${statementKeyId(KEY)})`,
    });
    const forged = withLines(text, (l) => l.map((line) => line.replace(/sig=[A-Za-z0-9+/]{4}/, 'sig=AAAA')));
    expect(forged).not.toBe(text);
    expect(checkStatement(forged, KEY)).toEqual({
      ok: false,
      code: 'BAD_SIGNATURE',
      message: `its signature is not key ${statementKeyId(KEY)}'s`,
    });
  });

  it('is not a statement without its signature row, with text after it, or without its header', () => {
    expect(
      checkStatement(
        withLines(text, (l) => [...l.slice(0, -2), '']),
        KEY,
      ),
    ).toEqual({
      ok: false,
      code: 'NOT_A_STATEMENT',
      message: 'it has no signature row',
    });
    expect(checkStatement(`${text}one more\n`, KEY)).toMatchObject({ ok: false, code: 'NOT_A_STATEMENT' });
    expect(checkStatement('request_id,amount\nr1,5\n', KEY)).toMatchObject({ ok: false, code: 'NOT_A_STATEMENT' });
  });

  it('does not add up when the service signed lines whose balances do not follow', () => {
    const writer = new StatementWriter(HEAD);
    const rows = [...writer.opening(), writer.movement(MOVEMENTS[0]), writer.closing().replace('15.000000', '15.000001')];
    const body = rows.map((l) => `${l}\n`).join('');
    const badSums = `${body}${signatureLine(HEAD, createHash('sha256').update(body).digest(), KEY)}\n`;
    expect(checkStatement(badSums, KEY)).toEqual({
      ok: false,
      code: 'DOES_NOT_ADD_UP',
      message: 'line 4: the closing balance 15.000001 is not the opening and movements, 15.000000',
    });
  });

  it('checks all but the signature without a key', () => {
    const other = generateKeyPairSync('ed25519').privateKey;
    expect(checkStatement(signed(HEAD, MOVEMENTS, other))).toMatchObject({ ok: true, summary: { keyId: statementKeyId(other) } });
  });

  it('opens and closes an empty month where it began, marked provisional when it still may change', () => {
    const empty = signed({ ...HEAD, month: '2025-12', status: 'provisional', openingMicro: 0 }, []);
    expect(lines(empty).slice(1, 3)).toEqual([
      'acct_1,2025-12,2025-12-01T00:00:00.000000Z,opening,,,,,,,,,,,,0.000000,provisional',
      'acct_1,2025-12,2026-01-01T00:00:00.000000Z,closing,,,,,,,,,,,,0.000000,provisional',
    ]);
    expect(checkStatement(empty, KEY)).toMatchObject({ ok: true, summary: { status: 'provisional', movements: 0, closingMicro: 0 } });
  });
});
