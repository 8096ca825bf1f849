import { billingV1 } from '@gw/contracts';
import { parseLyd } from '@gw/money';
import { MovementKind, StatementCheck, StatementRow, StatementSummary } from '@gw/statement';
import { lyd } from './account-view';
import { html, SafeHtml } from './html';

/** A month as a person names it: "November 2026". */
export const monthTitle = (month: string) =>
  new Date(`${month}-01T00:00:00Z`).toLocaleString('en-US', { month: 'long', year: 'numeric', timeZone: 'UTC' });

const KIND: Record<MovementKind, string> = {
  'top-up': 'Top-up',
  'operator-correction': 'Correction by the operator',
  'brought-forward': 'Balance brought forward',
  charge: 'Request',
  'estimate-corrected': 'Estimate corrected',
};

const tokens = (n: string) => Number(n).toLocaleString('en-US');
const amount = (text: string) => lyd(parseLyd(text) ?? 0);
const time = (iso: string) => `${iso.slice(0, 10)} ${iso.slice(11, 19)}`;

function details(r: StatementRow): SafeHtml {
  if (r.kind === 'charge')
    return html`<code>${r.model}</code>, ${tokens(r.prompt_tokens)} + ${tokens(r.completion_tokens)} tokens at
      ${amount(r.input_lyd_per_million)} + ${amount(r.output_lyd_per_million)} per million; ${r.usage},
      ${r.end_reason || 'end not recorded'},
      ${r.paid}${r.shortfall_lyd !== '0.000000' ? html`; <strong>${amount(r.shortfall_lyd)} the balance could not carry</strong>` : ''}
      <br /><span class="muted">${r.request_id}</span>`;
  if (r.kind === 'estimate-corrected')
    return html`reported ${tokens(r.prompt_tokens)} + ${tokens(r.completion_tokens)} tokens<br /><span class="muted"
        >${r.request_id}</span
      >`;
  return html`${r.note}`;
}

function movementsTable(rows: StatementRow[]): SafeHtml {
  return html`<table id="movements">
    <thead>
      <tr>
        <th scope="col">Time (UTC)</th>
        <th scope="col">What</th>
        <th scope="col">Details</th>
        <th scope="col">Amount</th>
        <th scope="col">Balance</th>
      </tr>
    </thead>
    <tbody>
      ${rows.map(
        (r) =>
          html`<tr data-kind="${r.kind}">
            <td>${time(r.time)}</td>
            <td data-label="What">${KIND[r.kind as MovementKind] ?? r.kind}</td>
            <td data-label="Details">${details(r)}</td>
            <td data-label="Amount" style="white-space:nowrap">${amount(r.amount_lyd)}</td>
            <td data-label="Balance" style="white-space:nowrap">${amount(r.balance_lyd)}</td>
          </tr>`,
      )}
    </tbody>
  </table>`;
}

const total = (s: StatementSummary, kinds: MovementKind[]) =>
  kinds.reduce((t, k) => ({ count: t.count + (s.totals[k]?.count ?? 0), amountMicro: t.amountMicro + (s.totals[k]?.amountMicro ?? 0) }), {
    count: 0,
    amountMicro: 0,
  });

function figures(s: StatementSummary): SafeHtml {
  const topUps = total(s, ['top-up', 'brought-forward']);
  const charges = total(s, ['charge']);
  const corrections = total(s, ['estimate-corrected', 'operator-correction']);
  return html`<dl class="figures">
    <div>
      <dt>Opening balance</dt>
      <dd id="opening">${lyd(s.openingMicro)}</dd>
    </div>
    <div>
      <dt>Top-ups (${topUps.count})</dt>
      <dd id="top-ups">${lyd(topUps.amountMicro)}</dd>
    </div>
    <div>
      <dt>Requests billed (${charges.count})</dt>
      <dd id="charges">${lyd(charges.amountMicro)}</dd>
    </div>
    <div>
      <dt>Corrections (${corrections.count})</dt>
      <dd id="corrections">${lyd(corrections.amountMicro)}</dd>
    </div>
    <div>
      <dt>Closing balance</dt>
      <dd id="closing">${lyd(s.closingMicro)}</dd>
    </div>
  </dl>`;
}

/** A month's statement as the holder reads it: what it comes to, the movements shown, and how it is signed. */
export function statementPage(
  month: string,
  check: StatementCheck,
  rows: StatementRow[],
  key: billingV1.GetStatementKeyResponse,
): SafeHtml {
  const csv = html`<a href="/statements/${month}.csv" download>Download the signed CSV</a>`;
  if (!check.ok)
    return html`<section class="banner" role="alert">
      <h2>This statement does not check</h2>
      <p>The console could not check it with the published key (${check.code}). Do not rely on it; tell the operator.</p>
    </section>`;
  const s = check.summary;
  return html`<section>
      ${
        s.status === 'provisional'
          ? html`<p class="notice" id="provisional">
              Provisional: bills of this month may still arrive until a day after it ends. The final statement may differ.
            </p>`
          : html`<p id="final">Final: this statement will not change.</p>`
      }
      ${figures(s)}
      <p>Opening balance plus every movement below comes to the closing balance. ${csv} (one row per movement).</p>
    </section>
    <section>
      <h2>Movements</h2>
      ${s.movements === 0 ? html`<p class="muted">Nothing moved the balance this month.</p>` : movementsTable(rows)}
      ${rows.length < s.movements ? html`<p>The first ${rows.length} of ${s.movements} movements; the CSV holds them all.</p>` : ''}
    </section>
    <section>
      <h2>Signature</h2>
      <p id="signature">
        Signed with the gateway's key <code>${key.keyId}</code>; the console checked the signature and the sums with it. The CSV carries the
        same signature: <a href="/statements">check it yourself</a>.
      </p>
    </section>`;
}

/** The months of the account's statements, and how to check one. */
export function statementsIndex(months: billingV1.StatementMonth[], key: billingV1.GetStatementKeyResponse): SafeHtml {
  return html`<section>
      <h2>Your monthly statements</h2>
      <p>
        Each month's opening balance, every top-up, request billed and correction with the balance after it, and the closing balance. A
        month is final a day after it ends.
      </p>
      <table id="months">
        <thead>
          <tr>
            <th scope="col">Month</th>
            <th scope="col">Status</th>
            <th scope="col"><span class="muted">Statement</span></th>
          </tr>
        </thead>
        <tbody>
          ${months.map(
            (m) =>
              html`<tr>
                <td><a href="/statements/${m.month}">${monthTitle(m.month)}</a></td>
                <td data-label="Status">${m.provisional ? 'provisional' : 'final'}</td>
                <td><a href="/statements/${m.month}.csv" download aria-label="CSV of ${monthTitle(m.month)}">CSV</a></td>
              </tr>`,
          )}
        </tbody>
      </table>
    </section>
    <section id="statement-key">
      <h2>Checking a statement</h2>
      <p>
        Every statement file ends with a signature row: the gateway's Ed25519 signature of every line above it. Anyone with the public key
        below can check that a file is the one the gateway made, unchanged, and that it adds up.
      </p>
      <p>Key <code id="key-id">${key.keyId}</code> (<a href="/statements/key.pem" download>statement-key.pem</a>):</p>
      <pre id="public-key" style="white-space:pre-wrap;word-break:break-all">${key.publicKeyPem}</pre>
      <p>With the gateway's command-line tool, or the short Node.js script of its documentation (docs/statements.md):</p>
      <pre style="white-space:pre-wrap;word-break:break-all">
npm run -s ctl -- statement verify statement-2026-11.csv --key statement-key.pem
node verify-statement.mjs statement-2026-11.csv statement-key.pem</pre>
    </section>`;
}
