/** What GET /sim/stats returns. */
export interface SimStatsSnapshot {
  /** Chat requests being answered now. */
  inFlight: number;
  /** Highest inFlight since start or the last reset. */
  maxInFlight: number;
  /** Chat requests received since start or the last reset. */
  total: number;
  /** Scheme and first 8 characters of the last chat request's Authorization header; null when it had none. */
  lastAuthorization: string | null;
}

/** Counts chat requests at the provider, so tests can check the gateway's concurrency and key. */
export class SimStats {
  private inFlight = 0;
  private maxInFlight = 0;
  private total = 0;
  private lastAuthorization: string | null = null;

  /** Counts one request in; the returned function counts it out (calling it again does nothing). */
  begin(authorization: string | undefined): () => void {
    this.total += 1;
    this.inFlight += 1;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    this.lastAuthorization = authorization === undefined ? null : maskAuthorization(authorization);
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.inFlight -= 1;
    };
  }

  /** The current counts. */
  snapshot(): SimStatsSnapshot {
    const { inFlight, maxInFlight, total, lastAuthorization } = this;
    return { inFlight, maxInFlight, total, lastAuthorization };
  }

  /** Starts counting afresh; requests still running stay counted in inFlight. */
  reset(): void {
    this.maxInFlight = this.inFlight;
    this.total = 0;
    this.lastAuthorization = null;
  }
}

/** `Bearer sk-abcdefghij` becomes `Bearer sk-abcde`: never more of a key than its first 8 characters. */
export function maskAuthorization(header: string): string {
  const [scheme, credential = ''] = header.trim().split(/\s+/, 2);
  return credential === '' ? scheme.slice(0, 8) : `${scheme} ${credential.slice(0, 8)}`;
}
