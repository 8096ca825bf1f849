import { Admission } from '../admission/admission';
import { QuotaClient } from '../clients/quota-client';
import { EdgeConfig } from '../config';
import { MinuteRefusals } from '../domain/minute-refusals';
import { FinishSender } from '../domain/finish-sender';
import { BillingClient } from './billing-client';
import { OlderAdmission } from './older-admission';
import { OlderQuotaCalls } from './older-quota-calls';
import { OlderQuotaFallback } from './older-quota-fallback';

/**
 * The edge's part in a rolling upgrade from the previous release, in one place (docs/architecture.md#older-releases):
 * admission falls back to the older calls while quota-service does not serve Admit, and the
 * billing-service client exists for their Authorize alone. Deleting this folder and its wiring
 * in edge-app.ts removes the older path.
 */
export function olderReleaseAdmission(
  config: Pick<EdgeConfig, 'billingAddr' | 'grpcSecurity' | 'grpcTimeoutMs'>,
  deps: { quota: QuotaClient; minuteRefusals: MinuteRefusals; finishSender: FinishSender },
): { admission(current: Admission): Admission; close(): void } {
  const billing = new BillingClient(config.billingAddr, config.grpcSecurity, config.grpcTimeoutMs);
  const older = new OlderAdmission({ ...deps, olderQuota: new OlderQuotaCalls(deps.quota), billing });
  return {
    admission: (current) => new OlderQuotaFallback(current, older),
    close: () => billing.close(),
  };
}
