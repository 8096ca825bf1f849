import { MoneyClients } from '../clients/money-clients';
import { lyd } from './account-view';
import { html, SafeHtml } from './html';

/** Where the balance stands against the holder's threshold, as billing-service reads it. */
export interface LowBalanceReading {
  thresholdMicro: number | undefined;
  balanceMicro: number;
  low: boolean;
}

/** The banner of an account whose balance is at or below the threshold its holder set; '' otherwise. */
export function lowBalanceBanner({ thresholdMicro, balanceMicro, low }: LowBalanceReading): SafeHtml | '' {
  if (thresholdMicro === undefined || !low) return '';
  return html`<section class="notice" role="status" id="low-balance">
    <h2>Low balance</h2>
    <p>
      The API balance is <strong>${lyd(balanceMicro)}</strong>, at or below the alert set at <strong>${lyd(thresholdMicro)}</strong>. A
      request the balance does not cover is tried as a free request, or refused.
    </p>
    <p><a href="/usage#low-balance-alert">Change the alert</a></p>
  </section>`;
}

/** The banner for a page that does not read the balance itself. */
export async function lowBalanceBannerOf(accountId: string, money: MoneyClients): Promise<SafeHtml | ''> {
  return lowBalanceBanner(await money.lowBalance(accountId));
}
