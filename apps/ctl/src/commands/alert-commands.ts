import { billingV1 } from '@gw/contracts';
import { microToLyd } from '@gw/money';
import { CtlUsageError } from '../parse-args';
import { Command, required } from './command';

/** The most alerts `alert list` prints. */
const MAX_ALERTS = 100;

/** A spend alert as `alert list` prints it: amounts in LYD, times ISO-8601 UTC. */
export function shownAlert(a: billingV1.SpendAlert) {
  return {
    id: a.alertId,
    accountId: a.accountId,
    keyId: a.keyId,
    reason: a.reason,
    raised: a.raisedAt,
    lastHour: microToLyd(a.lastHourMicroLyd),
    lastHourRequests: a.lastHourRequests,
    keyLastHour: microToLyd(a.keyLastHourMicroLyd),
    usualHour: microToLyd(a.usualHourMicroLyd),
    historyHours: a.historyHours,
    threshold: microToLyd(a.thresholdMicroLyd),
    restedDays: Math.floor(a.restedSeconds / 86_400),
    closed: a.closedAt ? { at: a.closedAt, closing: a.closing, by: a.closedBy } : null,
  };
}

/** `alert list [--account ID] [--closed]`: the open spend alerts (with --closed, the closed too) of one account or every account, newest first. */
export const alertList: Command = async (flags, c) => {
  const closed = flags.get('closed');
  if (closed !== undefined && closed !== 'true') throw new CtlUsageError('--closed takes no value');
  const { alerts } = await c.billing.listSpendAlerts({
    accountId: flags.get('account') ?? '',
    includeClosed: closed === 'true',
    limit: MAX_ALERTS,
  });
  return alerts.map(shownAlert);
};

/** `alert dismiss --id ALERT_ID`: the operator lets a spend alert be (the holder's own spending); once. */
export const alertDismiss: Command = async (flags, c) => {
  const alertId = Number(required(flags, 'id'));
  if (!Number.isSafeInteger(alertId) || alertId < 1) throw new CtlUsageError('--id takes an alert id, a whole number from 1');
  const { alerts } = await c.billing.closeSpendAlerts({ accountId: '', alertId, keyId: '', closing: 'dismissed', closedBy: '' });
  return shownAlert(alerts[0]);
};
