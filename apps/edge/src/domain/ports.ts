import { authV1, quotaV1 } from '@gw/contracts';

/**
 * What the edge's domain needs from the services it calls; the gRPC clients in ../clients
 * implement these, so the domain imports no client (and the clients may import the domain).
 */

/** auth-service: who owns a key, and which models an account may use. */
export interface KeyDirectory {
  authenticate(keySha256: string): Promise<authV1.AuthenticateResponse>;
  listModels(accountId: string): Promise<authV1.ListModelsResponse>;
}

/** Where the uses of cached keys go, for their "last used" time. */
export interface KeyUseLog {
  record(keyId: string): void;
}

/** quota-service: the end of a request, once it has been read to its end. */
export interface RequestFinishing {
  finishRequest(request: quotaV1.FinishRequestRequest): Promise<unknown>;
}

/** quota-service: the leases of running requests; names the billing ids it holds no lease for. */
export interface LeaseRenewing {
  renewLeases(leases: quotaV1.Lease[]): Promise<{ unknownRequestIds: string[] }>;
}
