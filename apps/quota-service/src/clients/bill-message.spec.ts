import { billingV1 } from '@gw/contracts';
import { OutboxBill } from '../store/outbox/bill-outbox';
import { toBill } from './bill-message';

const bill: OutboxBill = {
  kind: 'bill',
  requestId: 'r1',
  accountId: 'a',
  model: 'vendor-v4-flash',
  payment: 'paid',
  promptTokens: 1000,
  completionTokens: 500,
  usageEstimated: false,
  endReason: 'complete',
  hold: { amountMicro: 6000, inputMicroPerMillion: 1_000_000, outputMicroPerMillion: 4_000_000 },
  chargeMicro: 3000,
};

describe('toBill', () => {
  it('sends the admitted time quota-service fixed at Admit as Bill.admitted_at_ms, over the wire', () => {
    const sent = billingV1.Bill.decode(billingV1.Bill.encode(toBill({ ...bill, admittedAtMs: 1_935_864_000_123 })).finish());
    expect(sent).toMatchObject({ requestId: 'r1', chargeMicroLyd: 3000, heldMicroLyd: 6000, admittedAtMs: 1_935_864_000_123 });
  });

  it('leaves it unset for a bill queued without one (an older replica, or a request whose store lost its admission)', () => {
    const sent = billingV1.Bill.decode(billingV1.Bill.encode(toBill(bill)).finish());
    expect(sent.admittedAtMs).toBeUndefined();
  });

  it("sends the key the admission recorded as Bill.key_id, and none for a bill without one (an older edge's)", () => {
    const keyed = billingV1.Bill.decode(billingV1.Bill.encode(toBill({ ...bill, keyId: 'key_0a1b' })).finish());
    expect(keyed.keyId).toBe('key_0a1b');
    expect(billingV1.Bill.decode(billingV1.Bill.encode(toBill(bill)).finish()).keyId).toBeUndefined();
  });
});
