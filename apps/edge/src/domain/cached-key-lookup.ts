import { authV1 } from '@gw/contracts';
import { KeyCache } from './key-cache';
import { KeyDirectory, KeyUseLog } from './ports';

/** What the routes ask about callers and their models: auth-service's answers, from the cache where it may. */
export type KeyLookup = KeyDirectory;

/**
 * Authenticates a key from the key cache when it may (IdentityWatch keeps it coherent), else
 * from auth-service, keeping the answer when nothing changed meanwhile. A use served from the
 * cache is reported for the key's "last used" time.
 */
export class CachedKeyLookup implements KeyLookup {
  constructor(
    private readonly auth: KeyDirectory,
    private readonly cache: KeyCache,
    private readonly uses: KeyUseLog,
  ) {}

  async authenticate(keySha256: string): Promise<authV1.AuthenticateResponse> {
    const cached = this.cache.get(keySha256);
    if (cached) {
      if (!cached.suspension) this.uses.record(cached.keyId);
      return cached;
    }
    const ticket = this.cache.ticket();
    const owner = await this.auth.authenticate(keySha256);
    this.cache.keep(keySha256, owner, ticket);
    return owner;
  }

  listModels(accountId: string): Promise<authV1.ListModelsResponse> {
    return this.auth.listModels(accountId);
  }
}
