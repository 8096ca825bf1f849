import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ensureDevCertificates } from '@gw/dev-pki';
import { GATEWAY_IDENTITIES } from '@gw/identity';
import { CtlUsageError } from '../parse-args';
import { LocalCommand, required } from './command';
import { notWritable } from './new-file';

const IDENTITY = /^[a-z][a-z0-9-]{0,62}$/;

function certificateOf(dir: string, identity: string): { identity: string; dir: string; expires: string } {
  const cert = new X509Certificate(readFileSync(join(dir, identity, 'tls.crt')));
  return { identity, dir: join(dir, identity), expires: new Date(cert.validTo).toISOString() };
}

/** Runs `write` under the folder of --dir: one the system will not write there is refused as USAGE. */
function writingUnder<T>(dir: string, write: () => T): T {
  try {
    return write();
  } catch (err) {
    throw notWritable('dir', dir, err);
  }
}

/**
 * `tls init [--dir D]`: a development CA and a certificate for every identity of the gateway
 * under D (default $DATA_DIR/tls, where `npm start` keeps them); what is there and good is kept.
 */
export const tlsInit: LocalCommand = async (flags, defaults) => {
  const dir = resolve(flags.get('dir') ?? defaults.tlsRoot);
  const made = writingUnder(dir, () => ensureDevCertificates(dir));
  return { dir, made, certificates: GATEWAY_IDENTITIES.map((identity) => certificateOf(dir, identity)) };
};

/**
 * `tls issue --identity NAME [--dir D]`: a certificate of the development CA under D for one
 * identity (chat-product, or a new app), in D/NAME: tls.crt, tls.key and ca.crt.
 */
export const tlsIssue: LocalCommand = async (flags, defaults) => {
  const identity = required(flags, 'identity');
  if (!IDENTITY.test(identity))
    throw new CtlUsageError('--identity must be lower-case letters, digits and dashes, starting with a letter (at most 63)');
  const dir = resolve(flags.get('dir') ?? defaults.tlsRoot);
  writingUnder(dir, () => ensureDevCertificates(dir, [identity]));
  return certificateOf(dir, identity);
};
