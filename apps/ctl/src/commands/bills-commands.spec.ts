import { billingV1 } from '@gw/contracts';
import { CtlClients } from '../ctl-clients';
import { CtlUsageError } from '../parse-args';
import { billsFile, billsSetAside, billsWriteOff } from './bills-commands';

/** A billing-service that answers the set-aside calls from what it holds and records what it was asked. */
function billingHolding(bills: billingV1.SetAsideBill[]) {
  const asked: unknown[] = [];
  const billing = {
    listSetAsideBills: async (req: billingV1.ListSetAsideBillsRequest) => {
      asked.push(req);
      const from = req.after ? Number(req.after) : 0;
      const page = bills.slice(from, from + 1);
      return { bills: page, next: from + 1 < bills.length ? String(from + 1) : '' };
    },
    fileSetAsideBill: async (req: billingV1.FileSetAsideBillRequest) => {
      asked.push(req);
      return { month: '2026-11', chargedMicroLyd: 1_201_400, shortfallMicroLyd: 0, corrected: false };
    },
    writeOffSetAsideBill: async (req: billingV1.WriteOffSetAsideBillRequest) => {
      asked.push(req);
      return { chargeMicroLyd: 23_400 };
    },
  };
  return { clients: { billing, timeoutMs: 1000 } as unknown as CtlClients, asked };
}

const setAside = (requestId: string, reason: string): billingV1.SetAsideBill => ({
  bill: {
    requestId,
    accountId: 'acct_1',
    model: 'vendor-v4-flash',
    paid: true,
    promptTokens: 1000,
    completionTokens: 300,
    usageEstimated: false,
    heldMicroLyd: 2_000_000,
    inputMicroLydPerMillion: 1_000_000,
    outputMicroLydPerMillion: 4_000_000,
    chargeMicroLyd: 2_200,
    admittedAtMs: Date.parse('2026-08-20T10:00:00Z'),
  },
  reason,
  setAsideAt: '2026-11-28T12:00:00.000Z',
  deliveries: 2,
});

describe('bills commands', () => {
  it('bills set-aside lists every page as one JSON array, amounts in LYD and times in ISO-8601', async () => {
    const { clients, asked } = billingHolding([setAside('r1', 'too-late'), setAside('r2', 'archived-estimate')]);
    expect(await billsSetAside(new Map(), clients)).toEqual([
      {
        requestId: 'r1',
        accountId: 'acct_1',
        reason: 'too-late',
        admitted: '2026-08-20T10:00:00.000Z',
        setAside: '2026-11-28T12:00:00.000Z',
        deliveries: 2,
        model: 'vendor-v4-flash',
        paid: true,
        promptTokens: 1000,
        completionTokens: 300,
        usageEstimated: false,
        held: 2,
        charge: 0.0022,
      },
      expect.objectContaining({ requestId: 'r2', reason: 'archived-estimate' }),
    ]);
    expect(asked).toEqual([
      { after: '', limit: 1000 },
      { after: '1', limit: 1000 },
    ]);
  });

  it('bills file sends the request and the reason, and prints the month and the charge in LYD', async () => {
    const { clients, asked } = billingHolding([]);
    expect(await billsFile(new Map([['request', 'r1']]), clients)).toEqual({
      requestId: 'r1',
      month: '2026-11',
      charged: 1.2014,
      shortfall: 0,
      corrected: false,
    });
    expect(asked).toEqual([{ requestId: 'r1', reason: '' }]);
  });

  it('bills write-off needs a request and a reason, and refuses as USAGE before calling anything', async () => {
    const { clients, asked } = billingHolding([]);
    await expect(billsWriteOff(new Map([['request', 'r1']]), clients)).rejects.toThrow(CtlUsageError);
    await expect(billsWriteOff(new Map([['reason', 'refunded']]), clients)).rejects.toThrow(CtlUsageError);
    await expect(billsFile(new Map(), clients)).rejects.toThrow(CtlUsageError);
    expect(asked).toEqual([]);
    expect(
      await billsWriteOff(
        new Map([
          ['request', 'r1'],
          ['reason', 'refunded by hand'],
        ]),
        clients,
      ),
    ).toEqual({
      requestId: 'r1',
      writtenOff: true,
      charge: 0.0234,
    });
    expect(asked).toEqual([{ requestId: 'r1', reason: 'refunded by hand' }]);
  });
});
