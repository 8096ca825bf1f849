import { Request, Response, Router } from 'express';
import { auditV1 } from '@gw/contracts';
import { microToLyd } from '@gw/money';
import { AuthClient } from '../clients/auth-client';
import { MoneyClients } from '../clients/money-clients';
import { HolderAccess } from '../domain/holder-access';
import { when } from './account-view';
import { html, SafeHtml } from './html';
import { page } from './page';
import { sessionOf, signedIn } from './signed-in';

/** The newest entries shown: this many from each service's trail, merged, and as many of those. */
const SHOWN = 50;

type Details = Record<string, string | number | boolean | null>;

const lyd = (micro: number) => `${microToLyd(micro).toLocaleString('en-US', { maximumFractionDigits: 6 })} LYD`;
const text = (value: unknown) => (typeof value === 'string' ? value : String(value ?? ''));

/** What an entry did, in words. */
function whatHappened(entry: auditV1.AuditEntry): SafeHtml {
  const d = JSON.parse(entry.detailsJson) as Details;
  switch (entry.action) {
    case 'key-created':
      return html`Key “${text(d.name)}” created (<code>${text(d.prefix)}…</code>)`;
    case 'key-revoked':
      return html`Key <code>${text(d.prefix)}…</code> revoked`;
    case 'account-suspended':
      return html`Account suspended${d.until ? html` until ${when(text(d.until))}` : ''}`;
    case 'account-unsuspended':
      return html`Suspension lifted`;
    case 'deletion-scheduled':
      return html`Account scheduled for deletion`;
    case 'model-granted':
      return html`Model <code>${text(d.model)}</code> granted`;
    case 'balance-changed': {
      const amount = Number(d.amountMicro);
      return html`Balance ${amount >= 0 ? 'topped up by' : 'reduced by'} ${lyd(Math.abs(amount))}, to ${lyd(Number(d.balanceMicro))}`;
    }
    default:
      return html`${entry.action}`;
  }
}

/** Who did it: the console's holder by their email, the operator as such. */
const who = (actor: string) => (actor.startsWith('holder:') ? actor.slice('holder:'.length) : actor === 'ctl' ? 'the operator' : actor);

function activityTable(entries: auditV1.AuditEntry[]): SafeHtml {
  if (entries.length === 0) return html`<p class="muted">Nothing recorded yet.</p>`;
  return html`<table id="activity">
    <thead>
      <tr>
        <th scope="col">Time</th>
        <th scope="col">What</th>
        <th scope="col">By</th>
        <th scope="col">Reason</th>
      </tr>
    </thead>
    <tbody>
      ${entries.map(
        (e) =>
          html`<tr data-action="${e.action}">
            <td>${when(e.at)}</td>
            <td data-label="What">${whatHappened(e)}</td>
            <td data-label="By">${who(e.actor)}</td>
            ${e.reason ? html`<td data-label="Reason">${e.reason}</td>` : html`<td></td>`}
          </tr>`,
      )}
    </tbody>
  </table>`;
}

/**
 * GET /activity: the signed-in holder's own account's entries of both audit trails (auth-service:
 * keys, suspension, deletion, models; billing-service: balance changes), merged, newest first.
 */
export function activityRoutes(access: HolderAccess, auth: AuthClient, money: MoneyClients): Router {
  const router = Router();
  router.use('/activity', signedIn(access));
  router.get('/activity', async (_req: Request, res: Response) => {
    const { holder, csrfToken } = sessionOf(res);
    const [identity, balance] = await Promise.all([
      auth.auditEntries(holder.accountId, SHOWN),
      money.auditEntries(holder.accountId, SHOWN),
    ]);
    const entries = [...identity, ...balance].sort((a, b) => b.at.localeCompare(a.at)).slice(0, SHOWN);
    res.setHeader('Cache-Control', 'no-store');
    res.type('html').send(
      page(
        'Activity',
        html`<section>
          <h2>Changes to your account</h2>
          <p class="muted">The newest ${SHOWN} changes: keys, suspensions, models and balance, made here or by the operator.</p>
          ${activityTable(entries)}
        </section>`,
        { email: holder.email, csrfToken },
      ).markup,
    );
  });
  return router;
}
