import { status } from '@grpc/grpc-js';
import { Request, Response, Router } from 'express';
import { authV1 } from '@gw/contracts';
import { Logger } from '@gw/service-kit';
import { AuthClient } from '../clients/auth-client';
import { MoneyClients } from '../clients/money-clients';
import { HolderAccess } from '../domain/holder-access';
import { suspensionBanner, when } from './account-view';
import { html, SafeHtml } from './html';
import { lowBalanceBannerOf } from './low-balance-banner';
import { openSpendAlerts, spendAlertsBanner } from './spend-alerts-banner';
import { page } from './page';
import { sessionOf, signedIn } from './signed-in';

/** For the form's label only: auth-service counts characters as a person does, which a browser's maxlength does not. */
const MAX_KEY_NAME = 64;

/** Why keys cannot be created for the account now, or undefined (docs/api.md#keys: suspended, or scheduled for deletion). */
function cannotCreate(account: authV1.Account): string | undefined {
  if (account.suspension) return 'This account is suspended, so no keys can be created.';
  if (account.deletionScheduled) return 'This account is scheduled for deletion, so no keys can be created.';
  return undefined;
}

function keyTable(keys: authV1.KeyInfo[]): SafeHtml {
  if (keys.length === 0) return html`<p class="muted">No keys yet.</p>`;
  return html`<table>
    <thead>
      <tr>
        <th scope="col">Name</th>
        <th scope="col">Key</th>
        <th scope="col">Created</th>
        <th scope="col">Last used</th>
        <th scope="col"><span class="muted">Action</span></th>
      </tr>
    </thead>
    <tbody>
      ${keys.map(
        (k) =>
          html`<tr>
            <td>${k.name}</td>
            <td data-label="Key"><code>${k.prefix}…</code></td>
            <td data-label="Created">${when(k.created)}</td>
            <td data-label="Last used">${k.lastUsed ? when(k.lastUsed) : 'Never'}</td>
            <td><a href="/keys/${encodeURIComponent(k.id)}/revoke" aria-label="Revoke ${k.name}">Revoke</a></td>
          </tr>`,
      )}
    </tbody>
  </table>`;
}

/** What the key pages need beyond auth-service: the low-balance banner's threshold and balance. */
export interface KeyPageMoney {
  money: MoneyClients;
  logger: Logger;
}

/**
 * GET /keys, POST /keys (create), GET+POST /keys/:id/revoke: only the signed-in holder's account.
 * The account's open spend alerts come first; revoking a key closes its alerts.
 */
export function keyRoutes(access: HolderAccess, auth: AuthClient, { money, logger }: KeyPageMoney): Router {
  const router = Router();
  // Every page under /keys, /keys/:id/revoke included: one session lookup per request.
  router.use('/keys', signedIn(access));
  const listPage = async (res: Response, created?: { key: string; name: string }, problem?: string, typedName = '') => {
    const { holder, csrfToken } = sessionOf(res);
    // Keys can be looked after while billing-service does not answer: the page goes without the banner then.
    const lowBalance = lowBalanceBannerOf(holder.accountId, money).catch((err: unknown) => {
      logger.warn('low-balance banner left out: threshold or balance not read', { err });
      return '' as const;
    });
    const [account, keys, banner, alerts] = await Promise.all([
      auth.getAccount(holder.accountId),
      auth.listKeys(holder.accountId),
      lowBalance,
      openSpendAlerts(holder.accountId, money, logger),
    ]);
    const blocked = cannotCreate(account);
    res.setHeader('Cache-Control', 'no-store');
    res
      .status(problem ? 400 : 200)
      .type('html')
      .send(
        page(
          `Keys of ${account.name}`,
          html`${spendAlertsBanner(alerts, keys, csrfToken, '/keys')}${suspensionBanner(account)}${banner}
            ${
              created
                ? html`<section class="notice" role="status" id="new-key">
                    <h2>Your new key “${created.name}”</h2>
                    <p>
                      <strong>Copy it now: it will not be shown again.</strong> Keep it on your servers; anyone with it can spend this
                      account's balance.
                    </p>
                    <label for="key-value">Key</label><input id="key-value" class="key" type="text" readonly value="${created.key}" />
                    <button type="button" data-copy="key-value">Copy key</button> <span data-copied hidden>Copied.</span>
                  </section>`
                : ''
            }
            <section>
              <h2>Create a key</h2>
              ${blocked ? html`<p class="error">${blocked}</p>` : ''} ${problem ? html`<p class="error" role="alert">${problem}</p>` : ''}
              <form method="post" action="/keys">
                <input type="hidden" name="_csrf" value="${csrfToken}" />
                <label for="name">Name (optional, at most ${MAX_KEY_NAME} characters)</label
                ><input id="name" name="name" type="text" value="${typedName}" ${blocked ? new SafeHtml('disabled') : ''} />
                <button type="submit" ${blocked ? new SafeHtml('disabled') : ''}>Create key</button>
              </form>
            </section>
            <section>
              <h2>Your keys</h2>
              ${keyTable(keys)}
            </section>`,
          { email: holder.email, csrfToken },
        ).markup,
      );
  };

  router.get('/', (_req, res) => res.redirect(303, '/keys'));
  router.get('/keys', async (_req, res) => listPage(res));
  router.post('/keys', async (req: Request, res: Response) => {
    const { holder } = sessionOf(res);
    const name = typeof req.body?.name === 'string' ? req.body.name : '';
    const account = await auth.getAccount(holder.accountId);
    const blocked = cannotCreate(account);
    if (blocked) return listPage(res, undefined, blocked);
    // auth-service holds the rule for names (length as a person counts it, no control characters).
    const created = await auth.createKey(holder.accountId, name, holder.email).catch((err: { code?: number; details?: string }) => {
      if (err.code !== status.INVALID_ARGUMENT) throw err;
      return `${err.details?.replace(/^./, (c) => c.toUpperCase()) ?? 'That name cannot be used'}.`;
    });
    if (typeof created === 'string') return listPage(res, undefined, created, name);
    await listPage(res, { key: created.key, name: created.info?.name ?? name });
  });

  router.get('/keys/:id/revoke', async (req, res) => {
    const { holder, csrfToken } = sessionOf(res);
    const key = (await auth.listKeys(holder.accountId)).find((k) => k.id === req.params.id);
    if (!key) return res.redirect(303, '/keys');
    res.type('html').send(
      page(
        'Revoke a key',
        html`<section>
          <p>
            Revoke <strong>${key.name}</strong> (<code>${key.prefix}…</code>)? Requests with it will be refused from the next one on.
            <strong>This cannot be undone.</strong>
          </p>
          <form method="post" action="/keys/${encodeURIComponent(key.id)}/revoke">
            <input type="hidden" name="_csrf" value="${csrfToken}" /> <button type="submit" class="danger">Revoke key</button>
            <a href="/keys">Cancel</a>
          </form>
        </section>`,
        { email: holder.email, csrfToken },
      ).markup,
    );
  });
  router.post('/keys/:id/revoke', async (req, res) => {
    // Only a key of the signed-in holder's account: auth-service answers NOT_FOUND for another's.
    // An id no key can have (INVALID_ARGUMENT) is as unknown as another account's key.
    const { holder } = sessionOf(res);
    const revoked = await auth.revokeKey(holder.accountId, req.params.id, holder.email).then(
      () => true,
      (err: { code?: number }) => {
        if (err.code !== status.NOT_FOUND && err.code !== status.INVALID_ARGUMENT) throw err;
        return false;
      },
    );
    // The key's spend alerts close with it; one left open (billing-service not answering) shows the key as no longer active.
    if (revoked)
      await money.closeSpendAlerts(holder.accountId, { keyId: req.params.id }, holder.email).catch((err: unknown) => {
        logger.warn('spend alerts of a revoked key left open: billing-service did not answer', { err });
      });
    res.redirect(303, '/keys');
  });
  return router;
}
