import { billingV1 } from '@gw/contracts';
import { auditActor, RpcHandlers } from '@gw/service-kit';
import { SpendAlerts } from '../domain/spend-alerts';
import { toWireSpendAlert } from './spend-alert-wire';

type SpendAlertMethods = Pick<RpcHandlers<billingV1.BillingService>, 'listSpendAlerts' | 'closeSpendAlerts'>;

/** billing.v1's spend-alert methods (the console's and the operator's): translation only. */
export function spendAlertsGrpc(alerts: SpendAlerts): SpendAlertMethods {
  return {
    listSpendAlerts: async (req) => ({
      alerts: (await alerts.list(req.accountId, req.includeClosed, req.limit)).map(toWireSpendAlert),
    }),
    // As the audit trail names its actors: the console's holder (closed_by), else the caller's identity (ctl).
    closeSpendAlerts: async (req, { metadata }) => ({
      alerts: (await alerts.close({ ...req, closedBy: auditActor(metadata, { holder: req.closedBy }).actor })).map(toWireSpendAlert),
    }),
  };
}
