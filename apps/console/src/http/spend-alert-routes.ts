import { status } from '@grpc/grpc-js';
import { Request, Response, Router } from 'express';
import { MoneyClients } from '../clients/money-clients';
import { HolderAccess } from '../domain/holder-access';
import { AlertPage } from './spend-alerts-banner';
import { sessionOf, signedIn } from './signed-in';

const PAGES: readonly AlertPage[] = ['/keys', '/usage'];

/** POST /alerts/:id/dismiss: the holder lets a spend alert of its own account be, then back to the page it was on. */
export function spendAlertRoutes(access: HolderAccess, money: MoneyClients): Router {
  const router = Router();
  router.use('/alerts', signedIn(access));
  router.post('/alerts/:id/dismiss', async (req: Request, res: Response) => {
    const { holder } = sessionOf(res);
    const back = PAGES.find((p) => p === (req.body as Record<string, unknown>)?.back) ?? '/keys';
    const alertId = Number(req.params.id);
    // Only an alert of the holder's account: billing-service answers NOT_FOUND for another's.
    if (Number.isSafeInteger(alertId) && alertId > 0)
      await money.closeSpendAlerts(holder.accountId, { alertId }, holder.email).catch((err: { code?: number }) => {
        if (err.code !== status.NOT_FOUND) throw err;
      });
    res.redirect(303, back);
  });
  return router;
}
