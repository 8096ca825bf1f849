import { authV1 } from '@gw/contracts';
import { KeyCache } from './key-cache';
import { KeyDirectory, KeyUseLog } from './ports';

/**
 * Authenticates a key from the key cache when it may (IdentityWatch keeps it coherent), else
 * from auth-service, keeping the answer when nothing changed meanwhile. A use served from the
 * cache is reported for the key's "last used" time.
 */
export class CachedKeyLookup implements KeyDirectory {
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
