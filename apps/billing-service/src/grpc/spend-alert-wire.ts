import { billingV1 } from '@gw/contracts';
import { SpendAlertRecord } from '../store/spend-records';

/** A spend alert as billing.v1 carries it. */
export const toWireSpendAlert = (a: SpendAlertRecord): billingV1.SpendAlert => ({
  alertId: a.alertId,
  accountId: a.accountId,
  keyId: a.keyId,
  reason: a.reason,
  raisedAt: a.raisedAt.toISOString(),
  lastHourMicroLyd: a.lastHourMicro,
  lastHourRequests: a.lastHourRequests,
  keyLastHourMicroLyd: a.keyLastHourMicro,
  usualHourMicroLyd: a.usualMicro,
  historyHours: a.historyHours,
  thresholdMicroLyd: a.thresholdMicro,
  restedSeconds: Math.floor((a.restedMs ?? 0) / 1000),
  closedAt: a.closed?.at.toISOString() ?? '',
  closing: a.closed?.closing ?? '',
  closedBy: a.closed?.by ?? '',
});
