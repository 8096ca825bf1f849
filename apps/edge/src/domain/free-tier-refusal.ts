import { quotaV1 } from '@gw/contracts';
import { AppError, ErrorCode, ErrorExtras } from '@gw/errors';
import { microToLyd } from '@gw/money';

const { FreeRefusal } = quotaV1;

const REFUSALS: Partial<Record<quotaV1.FreeRefusal, { code: ErrorCode; reason?: ErrorExtras['reason']; message: string }>> = {
  [FreeRefusal.FREE_REFUSAL_SWITCHED_OFF]: { code: 'FREE_TIER_EXHAUSTED', message: 'Insufficient balance for this request.' },
  [FreeRefusal.FREE_REFUSAL_PAUSED]: { code: 'FREE_TIER_EXHAUSTED', reason: 'paused', message: 'Free requests are paused.' },
  [FreeRefusal.FREE_REFUSAL_MODEL]: { code: 'FREE_TIER_MODEL', message: 'Free requests can use vendor-v4-flash only.' },
  [FreeRefusal.FREE_REFUSAL_THINKING]: { code: 'FREE_TIER_THINKING', message: 'Free requests cannot ask for thinking.' },
  [FreeRefusal.FREE_REFUSAL_REQUEST_TOO_LARGE]: {
    code: 'FREE_TIER_DAILY_LIMIT',
    reason: 'request_too_large',
    message: 'The request is over the free size limits.',
  },
  [FreeRefusal.FREE_REFUSAL_ALLOWANCE_USED_UP]: { code: 'FREE_TIER_DAILY_LIMIT', message: "Today's free allowance is used up." },
  [FreeRefusal.FREE_REFUSAL_ALLOWANCE_TOO_SMALL]: {
    code: 'FREE_TIER_DAILY_LIMIT',
    reason: 'allowance',
    message: "The rest of today's free allowance is too small for this request.",
  },
  [FreeRefusal.FREE_REFUSAL_POOL_EXHAUSTED]: { code: 'FREE_TIER_EXHAUSTED', message: 'The free tier is used up for today.' },
};

/**
 * The 402 for a request the balance does not cover and the free tier refused (docs/api.md#every-error-code): the code
 * and reason of the refusal, the balance always, and requiredLyd when a balance exists but is too small.
 */
export function freeTierRefusal(
  refusal: quotaV1.FreeRefusal,
  hold: Pick<quotaV1.AdmitResponse, 'balanceMicroLyd' | 'requiredMicroLyd'>,
): AppError {
  const known = REFUSALS[refusal] ?? REFUSALS[FreeRefusal.FREE_REFUSAL_SWITCHED_OFF];
  const { code, reason, message } = known as NonNullable<typeof known>;
  const extras: ErrorExtras = { balance: microToLyd(hold.balanceMicroLyd) };
  if (reason) extras.reason = reason;
  if (hold.balanceMicroLyd > 0) extras.requiredLyd = microToLyd(hold.requiredMicroLyd);
  return new AppError(code, message, extras);
}
