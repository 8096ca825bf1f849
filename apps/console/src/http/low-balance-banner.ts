import { MoneyClients } from '../clients/money-clients';
import { isLowBalance } from '../domain/low-balance-threshold';
import { LowBalanceStore } from '../store/low-balance-store';
import { lyd } from './account-view';
import { html, SafeHtml } from './html';

/** The banner of an account whose balance is at or below the threshold its holder set; '' otherwise. */
export function lowBalanceBanner(balanceMicro: number, thresholdMicro: number | undefined): SafeHtml | '' {
  if (thresholdMicro === undefined || !isLowBalance(balanceMicro, thresholdMicro)) return '';
  return html`<section class="notice" role="status" id="low-balance">
    <h2>Low balance</h2>
    <p>
      The API balance is <strong>${lyd(balanceMicro)}</strong>, at or below the alert set at <strong>${lyd(thresholdMicro)}</strong>. A
      request the balance does not cover is tried as a free request, or refused.
    </p>
    <p><a href="/usage#low-balance-alert">Change the alert</a></p>
  </section>`;
}

/** The banner for a page that does not read the balance itself: billing-service is asked only when a threshold is set. */
export async function lowBalanceBannerOf(accountId: string, thresholds: LowBalanceStore, money: MoneyClients): Promise<SafeHtml | ''> {
  const threshold = await thresholds.threshold(accountId);
  return threshold === undefined ? '' : lowBalanceBanner(await money.balanceMicro(accountId), threshold);
}
