import { authV1, billingV1 } from '@gw/contracts';
import { Logger } from '@gw/service-kit';
import { MoneyClients } from '../clients/money-clients';
import { lyd, when } from './account-view';
import { html, SafeHtml } from './html';

/** The pages the banner is on, where a dismissal leads back to. */
export type AlertPage = '/keys' | '/usage';

const SECOND_DAYS = 86_400;

/** Which key, as the holder knows it: its name and prefix, or why it cannot be named. */
function keyNamed(alert: billingV1.SpendAlert, key: authV1.KeyInfo | undefined): SafeHtml {
  if (key) return html`Key <strong>“${key.name}”</strong> (<code>${key.prefix}…</code>)`;
  if (!alert.keyId) return html`A key the older release did not name`;
  return html`A key that is no longer active`;
}

/** Why the alert was raised, with its figures. */
function why(alert: billingV1.SpendAlert): SafeHtml {
  if (alert.reason === 'idle-key')
    return html`had not been used for <strong>${Math.floor(alert.restedSeconds / SECOND_DAYS)} days</strong> and spent
      <strong>${lyd(alert.keyLastHourMicroLyd)}</strong> within the hour after it was used again.`;
  const usual =
    alert.historyHours > 0
      ? html`The account's usual busy hour is ${lyd(alert.usualHourMicroLyd)}; an alert is raised above ${lyd(alert.thresholdMicroLyd)}.`
      : html`The account has no spending history yet; an alert is raised above ${lyd(alert.thresholdMicroLyd)} in an hour.`;
  return html`spent <strong>${lyd(alert.keyLastHourMicroLyd)}</strong> in the last hour, of
    <strong>${lyd(alert.lastHourMicroLyd)}</strong> the account spent in ${alert.lastHourRequests.toLocaleString('en-US')} paid requests.
    ${usual}`;
}

/** One alert: which key, why, when, and its two actions (revoke the key, with its confirmation; or dismiss). */
function alertItem(alert: billingV1.SpendAlert, key: authV1.KeyInfo | undefined, csrfToken: string, back: AlertPage): SafeHtml {
  return html`<div class="spend-alert" id="spend-alert-${alert.alertId}">
    <p>${keyNamed(alert, key)} ${why(alert)}</p>
    <p class="muted">Raised ${when(alert.raisedAt)}.</p>
    ${
      key
        ? html`<form method="get" action="/keys/${encodeURIComponent(key.id)}/revoke" class="inline">
            <button type="submit" class="danger">Revoke key “${key.name}”</button>
          </form>`
        : ''
    }
    <form method="post" action="/alerts/${alert.alertId}/dismiss" class="inline">
      <input type="hidden" name="_csrf" value="${csrfToken}" /><input type="hidden" name="back" value="${back}" />
      <button type="submit" class="secondary">Dismiss: this spending was ours</button>
    </form>
  </div>`;
}

/**
 * The account's open spend alerts at the top of a page: a key that may have leaked, each with the
 * figures and one action that revokes it (docs/console.md#a-key-that-may-have-leaked); '' when none.
 */
export function spendAlertsBanner(
  alerts: billingV1.SpendAlert[],
  keys: authV1.KeyInfo[],
  csrfToken: string,
  back: AlertPage,
): SafeHtml | '' {
  if (alerts.length === 0) return '';
  const byId = new Map(keys.map((k) => [k.id, k]));
  return html`<section class="banner" role="alert" id="spend-alerts">
    <h2>${alerts.length === 1 ? 'A key may have leaked' : 'Keys that may have leaked'}</h2>
    ${alerts.map((a) => alertItem(a, byId.get(a.keyId), csrfToken, back))}
    <p class="muted">
      Anyone with a key can spend this account's balance. Revoke a key you did not expect to spend; dismiss the alert when the spending was
      yours.
    </p>
  </section>`;
}

/** The account's open spend alerts; none when billing-service does not answer (logged): a page goes without them then. */
export async function openSpendAlerts(accountId: string, money: MoneyClients, logger: Logger): Promise<billingV1.SpendAlert[]> {
  try {
    return await money.spendAlerts(accountId);
  } catch (err) {
    logger.warn('spend alerts left out: billing-service did not answer', { err });
    return [];
  }
}
