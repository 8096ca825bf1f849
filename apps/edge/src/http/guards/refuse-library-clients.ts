import { RequestHandler } from 'express';
import { clientRefused } from '../replies/front-proxy-reply';

/**
 * Whether a User-Agent is the default of one of the named HTTP clients: the name alone, or the
 * name followed by `/` or a space (`Python-urllib/3.12`, `Go-http-client/1.1`, `Ruby`). Letter case is ignored.
 */
export function isNamedClient(userAgent: string | undefined, names: readonly string[]): boolean {
  if (!userAgent) return false;
  const agent = userAgent.toLowerCase();
  return names.some((name) => {
    const lowered = name.toLowerCase();
    return agent === lowered || agent.startsWith(`${lowered}/`) || agent.startsWith(`${lowered} `);
  });
}

/**
 * The edge proxy's 403 `error code: 1010` (docs/api.md#every-error-code) for the default User-Agents of the
 * standard-library HTTP clients named in configuration; every other client goes on.
 */
export function refuseLibraryClients(names: readonly string[]): RequestHandler {
  return (req, _res, next) => {
    next(isNamedClient(req.headers['user-agent'], names) ? clientRefused() : undefined);
  };
}
