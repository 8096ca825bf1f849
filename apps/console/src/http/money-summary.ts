import { AVERAGE_DAYS, Spending } from '../domain/spending';
import { lyd } from './account-view';
import { html, SafeHtml } from './html';

/** "About N days", or why there is no such figure. */
function lasts(daysLeft: number | undefined): string {
  if (daysLeft === undefined) return `No spending in the last ${AVERAGE_DAYS} days`;
  if (daysLeft === 0) return 'Less than a day';
  return `About ${daysLeft.toLocaleString('en-US')} ${daysLeft === 1 ? 'day' : 'days'}`;
}

/**
 * Where the money goes: the balance, what running requests hold now (undefined when
 * quota-service cannot tell yet), spent today, the average of the last full days and how long
 * the balance lasts at it.
 */
export function moneyFigures(balanceMicro: number, heldMicro: number | undefined, spending: Spending): SafeHtml {
  return html`<section aria-labelledby="money-heading">
    <h2 id="money-heading">Balance and spending</h2>
    <dl class="figures">
      <div>
        <dt>API balance</dt>
        <dd id="balance">${lyd(balanceMicro)}</dd>
      </div>
      <div>
        <dt>Held by running requests</dt>
        <dd id="held">${heldMicro === undefined ? 'Not known yet' : lyd(heldMicro)}</dd>
      </div>
      <div>
        <dt>Spent today (UTC)</dt>
        <dd id="spent-today">${lyd(spending.todayMicro)}</dd>
      </div>
      <div>
        <dt>Average per day, last ${AVERAGE_DAYS} days</dt>
        <dd id="daily-average">${lyd(spending.averageMicro)}</dd>
      </div>
      <div>
        <dt>The balance lasts, at that average</dt>
        <dd id="days-left">${lasts(spending.daysLeft)}</dd>
      </div>
    </dl>
    <p class="muted">
      A running paid request holds its worst case until it ends; what it does not use goes back to the balance. The average counts the
      ${AVERAGE_DAYS} full days before today (UTC).
    </p>
  </section>`;
}

/** micro-LYD as the form takes them back, exactly: "2.5", "0.000001", "10". */
function plainLyd(micro: number): string {
  const decimals = String(micro % 1_000_000)
    .padStart(6, '0')
    .replace(/0+$/, '');
  return `${Math.floor(micro / 1_000_000)}${decimals ? `.${decimals}` : ''}`;
}

/** What the holder sent that was refused: the problem, and the text to show again in the field. */
export interface ThresholdProblem {
  problem: string;
  typed: string;
}

/** The form that sets the low-balance threshold (or removes it, left empty), with the threshold now. */
export function lowBalanceForm(thresholdMicro: number | undefined, csrfToken: string, refused?: ThresholdProblem): SafeHtml {
  const value = refused ? refused.typed : thresholdMicro === undefined ? '' : plainLyd(thresholdMicro);
  return html`<section id="low-balance-alert">
    <h2>Low-balance alert</h2>
    <p id="threshold-now">
      ${thresholdMicro === undefined ? 'No alert is set.' : html`A banner shows on your pages while the balance is at or below <strong>${lyd(thresholdMicro)}</strong>, and a mail tells you once each time it falls there.`}
    </p>
    ${refused ? html`<p class="error" role="alert" id="threshold-problem">${refused.problem}</p>` : ''}
    <form method="post" action="/usage/low-balance">
      <input type="hidden" name="_csrf" value="${csrfToken}" />
      <label for="threshold">Alert at or below, in LYD (empty for no alert)</label>
      <input
        id="threshold"
        name="threshold"
        type="text"
        inputmode="decimal"
        autocomplete="off"
        value="${value}"
        ${refused ? html` aria-invalid="true" aria-describedby="threshold-problem"` : ''}
      />
      <button type="submit">Save alert</button>
    </form>
  </section>`;
}
