import { Request, RequestHandler, Response } from 'express';
import { KeyDirectory } from '../domain/ports';
import { QuotaClient } from '../clients/quota-client';
import { authenticateCaller } from '../http/guards/authenticate-caller';

/** GET /v1/usage (docs/api.md#endpoints): the account's tokens today and in all; key required, not counted. */
export function usageRoute(auth: KeyDirectory, quota: QuotaClient): RequestHandler {
  return async (req: Request, res: Response) => {
    const caller = await authenticateCaller(req.headers.authorization, auth);
    const usage = await quota.getUsage(caller.accountId);
    res.json({ todayTokens: usage.todayTokens, totalTokens: usage.totalTokens });
  };
}
