import { quotaV1 } from '@gw/contracts';
import { createLogger } from '@gw/service-kit';
import { LeaseKeeper } from './lease-keeper';
import { FinishSender } from './finish-sender';

describe('FinishSender', () => {
  it("sends an admitted request's finish with Admit's time and hold, so that quota-service checks them against the admission", async () => {
    const sent: quotaV1.FinishRequestRequest[] = [];
    const logger = createLogger('edge-test', 'error', () => undefined);
    const leases = new LeaseKeeper({ renewLeases: async () => ({ unknownRequestIds: [] }) }, 60_000, logger, 1000);
    const hold = { amountMicroLyd: 6000, inputMicroLydPerMillion: 1_000_000, outputMicroLydPerMillion: 4_000_000 };
    const finishSender = new FinishSender({ finishRequest: async (req) => sent.push(req) }, leases, logger);
    finishSender.finish({
      billingId: 'b1',
      accountId: 'a',
      model: 'vendor-v4-flash',
      payment: quotaV1.Payment.PAYMENT_PAID,
      usage: { promptTokens: 1000, completionTokens: 500 },
      usageEstimated: false,
      hold,
      admitted: true,
      admittedAtMs: 1_935_864_000_123,
      endReason: quotaV1.EndReason.END_REASON_COMPLETE,
    });
    await finishSender.drain();
    await leases.stop();
    expect(sent).toEqual([expect.objectContaining({ requestId: 'b1', hold, admitted: true, admittedAtMs: 1_935_864_000_123 })]);
  });
});
