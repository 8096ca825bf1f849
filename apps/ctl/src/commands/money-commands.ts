import { ServiceError, status } from '@grpc/grpc-js';
import { microToLyd } from '@gw/money';
import { CtlUsageError } from '../parse-args';
import { Command, lydFlag, reasonFlag, required } from './command';

const amount = (flags: Map<string, string>, name: string): number => lydFlag(name, required(flags, name));

/** Tries of a negative change: between a return and the change a request may draw the line again. */
const LINE_RETURN_TRIES = 3;

/**
 * `balance add --account ID --amount LYD [--reason TEXT] [--idempotency-key K]` (the amount may be
 * negative, never 0). Under a key the change is made once, however often the command is run: the same key
 * answers the balance that change left. auth-service owns accounts
 * and billing-service keeps a balance for any id, so an unknown account is refused here first.
 * Money lent to quota-service as the account's credit line cannot be taken: a negative change
 * refused FAILED_PRECONDITION takes the unheld line back (quota.v1 ReturnCreditLine) and is tried
 * again; what running requests hold stays refused.
 */
export const balanceAdd: Command = async (flags, c) => {
  const idempotencyKey = flags.get('idempotency-key');
  const reason = flags.get('reason');
  if (idempotencyKey === 'true' || reason === 'true') throw new CtlUsageError('--reason and --idempotency-key take a value');
  const amountMicroLyd = amount(flags, 'amount');
  if (amountMicroLyd === 0) throw new CtlUsageError('--amount cannot be 0: a change is more or less money, never none');
  const req = {
    accountId: required(flags, 'account'),
    amountMicroLyd,
    note: { reason: reason ?? '', idempotencyKey: idempotencyKey ?? '' },
  };
  await c.auth.getAccount({ accountId: req.accountId });
  for (let tries = 1; ; tries++) {
    try {
      const { balanceMicroLyd } = await c.billing.addBalance(req);
      return { balance: microToLyd(balanceMicroLyd) };
    } catch (err) {
      if (req.amountMicroLyd >= 0 || (err as ServiceError).code !== status.FAILED_PRECONDITION || tries === LINE_RETURN_TRIES) throw err;
      // An older quota-service lends no line: the refusal stands as billing-service gave it.
      const returned = await c.quota.returnCreditLine({ accountId: req.accountId }).catch(() => undefined);
      if (!returned?.returnedMicroLyd) throw err;
    }
  }
};

/** How long `price set` waits: longer than billing-service waits for its watchers' acknowledgements. */
const SET_PRICE_TIMEOUT_MS = 20_000;

/**
 * `price set --model M --input LYD_PER_MILLION --output LYD_PER_MILLION [--reason TEXT]`. auth-service owns the
 * model catalogue and billing-service prices any id, so an unknown model is refused here first.
 */
export const priceSet: Command = async (flags, c) => {
  const input = amount(flags, 'input');
  const output = amount(flags, 'output');
  if (input < 0 || output < 0) throw new CtlUsageError('prices cannot be negative');
  const price = { model: required(flags, 'model'), inputMicroLydPerMillion: input, outputMicroLydPerMillion: output };
  await c.auth.getModel({ id: price.model });
  // SetPrice returns once every quota-service replica applied the price, or billing gave up on one (PRICE_ACK_TIMEOUT_MS and a few seconds).
  const res = await c.billing.setPrice({ price, reason: reasonFlag(flags) }, { timeoutMs: Math.max(c.timeoutMs, SET_PRICE_TIMEOUT_MS) });
  const p = res.price ?? price;
  return { model: p.model, input: microToLyd(p.inputMicroLydPerMillion), output: microToLyd(p.outputMicroLydPerMillion) };
};

/** `usage show --account ID` */
export const usageShow: Command = async (flags, c) => {
  const res = await c.quota.getUsage({ accountId: required(flags, 'account') });
  return { todayTokens: res.todayTokens, totalTokens: res.totalTokens };
};
