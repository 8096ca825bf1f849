import { Pool } from 'undici';

/** Where load goes: the gateway (with a key per request) or the provider-sim directly. */
export interface Target {
  name: 'gateway' | 'direct' | 'floor';
  pool: Pool;
  path: string;
  /** The Authorization header of the next request, or undefined when no account has room. */
  authorization(): string | undefined;
}

/** A keep-alive pool to a base URL such as http://127.0.0.1:8080/v1. */
export function targetPool(baseUrl: string): { pool: Pool; path: string } {
  const url = new URL(`${baseUrl}/chat/completions`);
  return { pool: new Pool(url.origin, { connections: 2048, pipelining: 1, keepAliveTimeout: 60_000 }), path: url.pathname };
}

/** Sends one chat request and reads the whole reply; resolves to the status (0 on a network fault). */
export async function send(target: Target, body: string): Promise<number> {
  const authorization = target.authorization();
  if (authorization === undefined) return 0;
  try {
    const res = await target.pool.request({
      path: target.path,
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization, 'user-agent': 'gateway-bench' },
      body,
    });
    await res.body.arrayBuffer();
    return res.statusCode;
  } catch {
    return 0;
  }
}
