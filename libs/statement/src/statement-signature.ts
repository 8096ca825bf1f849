import { createHash, createPrivateKey, createPublicKey, KeyObject, sign, verify } from 'node:crypto';
import { csvLine } from './csv-line';
import { STATEMENT_COLUMNS, StatementColumn } from './statement-format';

/** The kind of a statement's last row, which signs every byte before it. */
export const SIGNATURE_KIND = 'signature';

/** An Ed25519 private key's PKCS #8 encoding is this prefix and its 32-byte seed. */
const PKCS8_ED25519_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');
const SEED = /^[0-9a-f]{64}$/i;

/** The Ed25519 private key of a 32-byte seed written as 64 hex characters (`openssl rand -hex 32`). */
export function signingKeyFromSeed(hex: string): KeyObject {
  if (!SEED.test(hex)) throw new Error('a statement signing key is 64 hex characters (32 bytes)');
  return createPrivateKey({ key: Buffer.concat([PKCS8_ED25519_PREFIX, Buffer.from(hex, 'hex')]), format: 'der', type: 'pkcs8' });
}

/** The public key of a private key, or the key itself when public. */
const publicOf = (key: KeyObject): KeyObject => (key.type === 'public' ? key : createPublicKey(key));

/** The public key of `key` as PEM (SPKI), as holders are given it. */
export const publicKeyPem = (key: KeyObject): string => publicOf(key).export({ type: 'spki', format: 'pem' }).toString();

/** A key's short name: the first 16 hex characters of the SHA-256 of its public key's SPKI encoding. */
export const statementKeyId = (key: KeyObject): string =>
  createHash('sha256')
    .update(publicOf(key).export({ type: 'spki', format: 'der' }))
    .digest('hex')
    .slice(0, 16);

/** What a signature row says: the key's id, the SHA-256 of the lines it signs, and the Ed25519 signature of those 32 bytes. */
export interface StatementSignature {
  keyId: string;
  sha256: string;
  signature: Buffer;
}

const NOTE = /^ed25519 key=([0-9a-f]{16}) sha256=([0-9a-f]{64}) sig=([A-Za-z0-9+/]{86}==)$/;

/** The signature row's note: `ed25519 key=<id> sha256=<hex> sig=<base64>`. */
export function readSignatureNote(note: string): StatementSignature | undefined {
  const match = NOTE.exec(note);
  return match ? { keyId: match[1], sha256: match[2], signature: Buffer.from(match[3], 'base64') } : undefined;
}

/**
 * The row that ends a statement: the Ed25519 signature, by the service's private `key`, of the
 * SHA-256 `digest` of every byte before it (its line ends included).
 */
export function signatureLine(who: { accountId: string; month: string }, digest: Buffer, key: KeyObject): string {
  const note = `ed25519 key=${statementKeyId(key)} sha256=${digest.toString('hex')} sig=${sign(null, digest, key).toString('base64')}`;
  const fields: Partial<Record<StatementColumn, string>> = { account: who.accountId, month: who.month, kind: SIGNATURE_KIND, note };
  return csvLine(STATEMENT_COLUMNS.map((c) => fields[c] ?? ''));
}

/** Whether `signature` is `publicKey`'s Ed25519 signature of `digest`. */
export const signatureHolds = (digest: Buffer, signature: Buffer, publicKey: KeyObject): boolean =>
  verify(null, digest, publicKey, signature);
