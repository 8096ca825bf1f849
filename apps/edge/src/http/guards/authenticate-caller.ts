import { createHash } from 'node:crypto';
import { AppError, SuspensionInfo } from '@gw/errors';
import { authV1 } from '@gw/contracts';
import { KeyDirectory } from '../../domain/ports';
import { parseAuthorization } from './authorization-header';

/** A caller whose key was accepted. */
export interface Caller {
  accountId: string;
  keyId: string;
  models: authV1.Model[];
}

const toSuspension = (s: authV1.Suspension): SuspensionInfo => ({
  until: s.until || null,
  reason: s.reason || null,
  whatsapp: s.whatsapp,
});

/**
 * Applies docs/api.md#authentication to a request's Authorization header: MISSING_API_KEY, INVALID_API_KEY,
 * ACCOUNT_SUSPENDED. The key is looked up by its SHA-256 (the raw key stays here), from the
 * coherent key cache when it may.
 */
export async function authenticateCaller(authorization: string | undefined, auth: KeyDirectory): Promise<Caller> {
  const bearer = parseAuthorization(authorization);
  if (bearer.kind === 'missing') throw new AppError('MISSING_API_KEY', 'Missing API key: send Authorization: Bearer <key>.');
  if (!bearer.key.startsWith('sk-')) throw new AppError('INVALID_API_KEY', 'Invalid API key.');
  const owner = await auth.authenticate(createHash('sha256').update(bearer.key, 'utf8').digest('hex'));
  if (!owner.found) throw new AppError('INVALID_API_KEY', 'Invalid API key.');
  if (owner.suspension) {
    throw new AppError('ACCOUNT_SUSPENDED', 'This account is suspended.', { suspension: toSuspension(owner.suspension) });
  }
  return { accountId: owner.accountId, keyId: owner.keyId, models: owner.models };
}
