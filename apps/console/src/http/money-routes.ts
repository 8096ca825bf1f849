import { Request, Response, Router } from 'express';
import { authV1, billingV1 } from '@gw/contracts';
import { Logger } from '@gw/service-kit';
import { AuthClient } from '../clients/auth-client';
import { MoneyClients } from '../clients/money-clients';
import { HolderAccess } from '../domain/holder-access';
import { readThreshold } from '../domain/low-balance-threshold';
import { spendingOf } from '../domain/spending';
import { lyd, suspensionBanner, when } from './account-view';
import { dayChart } from './day-chart';
import { html, SafeHtml } from './html';
import { lowBalanceBanner } from './low-balance-banner';
import { openSpendAlerts, spendAlertsBanner } from './spend-alerts-banner';
import { lowBalanceForm, moneyFigures, ThresholdProblem } from './money-summary';
import { page } from './page';
import { sessionOf, signedIn } from './signed-in';

const PAGE_SIZE = 20;
const CHART_DAYS = 30;

const tokens = (n: number) => n.toLocaleString('en-US');

const { EndReason } = billingV1;

/** Why a billed request ended, in the holder's words. */
const ENDED: Record<billingV1.EndReason, string> = {
  [EndReason.END_REASON_UNSPECIFIED]: 'not recorded',
  [EndReason.END_REASON_COMPLETE]: 'complete',
  [EndReason.END_REASON_CALLER_LEFT]: 'you left; the reply was read to its end',
  [EndReason.END_REASON_PROVIDER_BROKE_OFF]: 'the provider broke off',
  [EndReason.END_REASON_RECOVERED]: 'recovered after the gateway lost it',
  [EndReason.UNRECOGNIZED]: 'not recorded',
};

const usageText = (c: billingV1.Charge): string =>
  c.usageEstimated ? 'estimated' : c.corrected ? 'reported (replaced an estimate)' : 'reported';

function chargesTable(charges: billingV1.Charge[]): SafeHtml {
  if (charges.length === 0) return html`<p class="muted">No requests billed yet.</p>`;
  return html`<table>
    <thead>
      <tr>
        <th scope="col">Time</th>
        <th scope="col">Model</th>
        <th scope="col">Tokens</th>
        <th scope="col">Amount</th>
        <th scope="col">Paid or free</th>
        <th scope="col">Ended</th>
        <th scope="col">Usage</th>
      </tr>
    </thead>
    <tbody>
      ${charges.map(
        (c) =>
          html`<tr>
            <td>${when(c.created)}</td>
            <td data-label="Model"><code>${c.model}</code></td>
            <td data-label="Tokens">
              ${tokens(c.promptTokens + c.completionTokens)} (${tokens(c.promptTokens)} + ${tokens(c.completionTokens)})
            </td>
            <td data-label="Amount">${lyd(c.amountMicroLyd)}</td>
            <td data-label="Paid or free">${c.paid ? 'paid' : 'free'}</td>
            <td data-label="Ended">${ENDED[c.endReason]}</td>
            <td data-label="Usage">${usageText(c)}</td>
          </tr>`,
      )}
    </tbody>
  </table>`;
}

function pricesTable(models: authV1.Model[], prices: billingV1.Price[]): SafeHtml {
  const byModel = new Map(prices.map((p) => [p.model, p]));
  return html`<table>
    <thead>
      <tr>
        <th scope="col">Model</th>
        <th scope="col">Prompt, per million tokens</th>
        <th scope="col">Completion, per million tokens</th>
      </tr>
    </thead>
    <tbody>
      ${models.map((m) => {
        const p = byModel.get(m.id);
        return html`<tr>
          <td><code>${m.id}</code></td>
          <td data-label="Prompt, per million">${p ? lyd(p.inputMicroLydPerMillion) : 'not priced'}</td>
          <td data-label="Completion, per million">${p ? lyd(p.outputMicroLydPerMillion) : 'not priced'}</td>
        </tr>`;
      })}
    </tbody>
  </table>`;
}

/**
 * GET /usage: the balance, what running requests hold, spent today, the average of the last
 * 7 days and how long the balance lasts, the low-balance alert, the free allowance left today,
 * usage, a chart of 30 days, the requests billed (paged) and the prices. POST /usage/low-balance
 * sets the alert's threshold.
 */
export function moneyRoutes(access: HolderAccess, auth: AuthClient, money: MoneyClients, logger: Logger): Router {
  const router = Router();
  router.use('/usage', signedIn(access));
  const usagePage = async (req: Request, res: Response, refused?: ThresholdProblem) => {
    const { holder, csrfToken } = sessionOf(res);
    const accountId = holder.accountId;
    const before = typeof req.query.before === 'string' ? req.query.before : '';
    const [account, lowBalance, held, allowance, usage, days, page1, models, prices, alerts] = await Promise.all([
      auth.getAccount(accountId),
      money.lowBalance(accountId),
      money.heldMicro(accountId),
      money.freeAllowance(accountId),
      money.usage(accountId),
      money.dailyTotals(accountId, CHART_DAYS),
      money.charges(accountId, PAGE_SIZE, before),
      auth.listModels(accountId),
      money.prices(),
      openSpendAlerts(accountId, money, logger),
    ]);
    const { balanceMicro: balance, thresholdMicro: threshold } = lowBalance;
    // The keys only to name those of spend alerts.
    const alertKeys = alerts.length ? await auth.listKeys(accountId) : [];
    const spending = spendingOf(
      days.map((d) => ({ day: d.day, amountMicro: d.amountMicroLyd })),
      balance,
    );
    res.setHeader('Cache-Control', 'no-store');
    res
      .status(refused ? 400 : 200)
      .type('html')
      .send(
        page(
          'Money and use',
          html`${spendAlertsBanner(alerts, alertKeys, csrfToken, '/usage')}${suspensionBanner(account)}${lowBalanceBanner(lowBalance)}
            ${moneyFigures(balance, held, spending)} ${lowBalanceForm(threshold, csrfToken, refused)}
            <section>
              <h2>Use</h2>
              <dl>
                <dt>Free allowance left today</dt>
                <dd id="free-left">
                  ${allowance.available ? html`${tokens(allowance.remainingTokens)} of ${tokens(allowance.dailyTokens)} tokens (resets at 00:00 UTC)` : 'Free requests are not available now.'}
                </dd>
                <dt>Tokens today</dt>
                <dd id="today-tokens">${tokens(usage.todayTokens)}</dd>
                <dt>Tokens all time</dt>
                <dd id="total-tokens">${tokens(usage.totalTokens)}</dd>
              </dl>
              <p class="muted">Usage includes the account's use of the chat product.</p>
            </section>
            <section>
              <h2>The last ${CHART_DAYS} days</h2>
              <h3>Tokens per day</h3>
              ${dayChart(
                'Tokens per day, last 30 days',
                days.map((d) => ({ day: d.day, value: d.tokens })),
                tokens,
              )}
              <h3>LYD per day</h3>
              ${dayChart(
                'LYD charged per day, last 30 days',
                days.map((d) => ({ day: d.day, value: d.amountMicroLyd })),
                lyd,
              )}
              <details>
                <summary>The same as a table</summary>
                <table>
                  <thead>
                    <tr>
                      <th scope="col">Day</th>
                      <th scope="col">Tokens</th>
                      <th scope="col">Charged</th>
                    </tr>
                  </thead>
                  <tbody>
                    ${days.map(
                      (d) =>
                        html`<tr>
                          <td>${d.day}</td>
                          <td data-label="Tokens">${tokens(d.tokens)}</td>
                          <td data-label="Charged">${lyd(d.amountMicroLyd)}</td>
                        </tr>`,
                    )}
                  </tbody>
                </table>
              </details>
            </section>
            <section>
              <h2>Requests billed</h2>
              ${chargesTable(page1.charges)}
              <p>
                ${before ? html`<a href="/usage">Newest</a> ` : ''}${page1.next ? html`<a href="/usage?before=${encodeURIComponent(page1.next)}">Older requests</a>` : ''}
              </p>
            </section>
            <section>
              <h2>Prices of your models</h2>
              ${pricesTable(models, prices)}
            </section>`,
          { email: holder.email, csrfToken },
        ).markup,
      );
  };

  router.get('/usage', (req, res) => usagePage(req, res));
  router.post('/usage/low-balance', async (req: Request, res: Response) => {
    const sent: unknown = req.body?.threshold;
    // Not one text (no field, or the field twice): never read as "no alert".
    if (typeof sent !== 'string')
      return usagePage(req, res, { problem: 'The form sent no single threshold: type one amount in LYD.', typed: '' });
    const reading = readThreshold(sent);
    if (!reading.ok) return usagePage(req, res, { problem: reading.problem, typed: sent });
    const { holder } = sessionOf(res);
    await money.setThreshold(holder.accountId, reading.micro, holder.email);
    logger.info('low-balance threshold set', { accountId: holder.accountId, holderId: holder.id, thresholdMicro: reading.micro ?? null });
    res.redirect(303, '/usage#low-balance-alert');
  });
  return router;
}
