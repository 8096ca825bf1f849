import { Request, Response, Router } from 'express';
import { notifierV1 } from '@gw/contracts';
import { fromHolderEventKindWire, Logger } from '@gw/service-kit';
import { NotifierClient } from '../clients/notifier-client';
import { HolderAccess } from '../domain/holder-access';
import { canSwitchOff, MAIL_KINDS, switchedOffFrom } from '../domain/mail-switches';
import { MailSwitchStore } from '../store/mail-switch-store';
import { when } from './account-view';
import { html, SafeHtml } from './html';
import { page } from './page';
import { sessionOf, signedIn } from './signed-in';

/** The newest mails shown. */
const SHOWN = 50;

const STATES: Record<string, string> = {
  kept: 'kept here (no mail server)',
  pending: 'waiting to be sent',
  sent: 'sent',
  failed: 'not sent: the mail server kept refusing it',
};

const kindLabel = (mail: notifierV1.Mail) => MAIL_KINDS.find((m) => m.kind === fromHolderEventKindWire(mail.kind))?.label ?? 'Other';

function switchesForm(off: readonly string[], csrfToken: string): SafeHtml {
  return html`<section id="mail-switches">
    <h2>What we mail you about</h2>
    <p class="muted">
      Mail goes to the address you sign in with. Security mail (keys created, revoked, or suspected of a leak) is always sent.
    </p>
    <form method="post" action="/mail/switches">
      <input type="hidden" name="_csrf" value="${csrfToken}" />
      ${MAIL_KINDS.map(({ kind, label }) =>
        canSwitchOff(kind)
          ? html`<label class="switch"
              ><input type="checkbox" name="on" value="${kind}" ${off.includes(kind) ? '' : new SafeHtml('checked')} /> ${label}</label
            >`
          : html`<label class="switch"
              ><input type="checkbox" checked disabled data-kind="${kind}" /> ${label}
              <span class="muted">(security mail: always on)</span></label
            >`,
      )}
      <button type="submit">Save</button>
    </form>
  </section>`;
}

function mailList(mails: notifierV1.Mail[] | undefined): SafeHtml {
  if (mails === undefined) return html`<p class="error" role="alert">The mails cannot be shown just now. Try again in a moment.</p>`;
  if (mails.length === 0) return html`<p class="muted">No mail yet.</p>`;
  return html`<table id="mails">
    <thead>
      <tr>
        <th scope="col">Time</th>
        <th scope="col">Mail</th>
        <th scope="col">To</th>
        <th scope="col">State</th>
      </tr>
    </thead>
    <tbody>
      ${mails.map(
        (m) =>
          html`<tr data-kind="${fromHolderEventKindWire(m.kind) ?? ''}">
            <td>${when(m.eventAt)}</td>
            <td data-label="Mail">
              <details>
                <summary>${m.subject}</summary>
                <p class="muted">${kindLabel(m)}</p>
                <pre class="mail-text">${m.text}</pre>
              </details>
            </td>
            <td data-label="To">${m.to}</td>
            <td data-label="State">${STATES[m.state] ?? m.state}${m.sentAt ? html` ${when(m.sentAt)}` : ''}</td>
          </tr>`,
      )}
    </tbody>
  </table>`;
}

/**
 * GET /mail: the kinds of mail the signed-in holder gets (security mail always on) and the
 * account's newest mails with their text, as the notifier keeps them (without a mail server it
 * keeps them here instead of sending). POST /mail/switches saves the switches.
 */
export function mailRoutes(access: HolderAccess, notifier: NotifierClient, switches: MailSwitchStore, logger: Logger): Router {
  const router = Router();
  router.use('/mail', signedIn(access));
  router.get('/mail', async (_req: Request, res: Response) => {
    const { holder, csrfToken } = sessionOf(res);
    // The switches can be changed while the notifier does not answer: the list says so instead.
    const [off, mails] = await Promise.all([
      switches.switchedOff(holder.id),
      notifier.mails(holder.accountId, SHOWN).catch((err: unknown) => {
        logger.warn('mails not shown: the notifier did not answer', { err });
        return undefined;
      }),
    ]);
    res.setHeader('Cache-Control', 'no-store');
    res.type('html').send(
      page(
        'Mail',
        html`${switchesForm(off, csrfToken)}
          <section>
            <h2>Mails of this account</h2>
            <p class="muted">The newest ${SHOWN}, newest first, to every holder of the account.</p>
            ${mailList(mails)}
          </section>`,
        { email: holder.email, csrfToken },
      ).markup,
    );
  });
  router.post('/mail/switches', async (req: Request, res: Response) => {
    const { holder } = sessionOf(res);
    const off = switchedOffFrom((req.body as Record<string, unknown> | undefined)?.on);
    await switches.setSwitchedOff(holder.id, off);
    logger.info('mail switches set', { holderId: holder.id, switchedOff: off });
    res.redirect(303, '/mail#mail-switches');
  });
  return router;
}
