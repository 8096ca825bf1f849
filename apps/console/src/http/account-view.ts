import { authV1 } from '@gw/contracts';
import { microToLyd } from '@gw/money';
import { html, SafeHtml } from './html';

/** A time as the pages show it: YYYY-MM-DD HH:MM UTC; empty for none. */
export const when = (iso: string) => (iso ? new Date(iso).toISOString().replace('T', ' ').slice(0, 16) + ' UTC' : '');

/** An amount as the pages show it: LYD with up to 6 decimals and thousands separated ("1,234.5 LYD"). */
export const lyd = (micro: number) => `${microToLyd(micro).toLocaleString('en-US', { maximumFractionDigits: 6 })} LYD`;

/** The banner of a suspended account: until when, why, and whom to ask (docs/api.md#errors, the suspension object). */
export function suspensionBanner(account: authV1.Account): SafeHtml | '' {
  const s = account.suspension;
  if (!s) return '';
  return html`<section class="banner" role="alert">
    <h2>Account suspended</h2>
    <p>
      Every API request with this account's keys is
      refused${s.until ? html` until <strong>${when(s.until)}</strong>` : ' until further notice'}.
    </p>
    ${s.reason ? html`<p>Reason: ${s.reason}</p>` : ''}
    <p>Questions: WhatsApp <a href="https://wa.me/${s.whatsapp.replace(/\D/g, '')}">${s.whatsapp}</a></p>
  </section>`;
}
