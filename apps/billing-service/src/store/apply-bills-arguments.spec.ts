import { APPLY_BILLS_ARGUMENT_ORDER, applyBillsArguments, applyBillsParameters } from './apply-bills-arguments';
import { FilingBill } from './credit-line-records';
import { BILLING_MIGRATIONS } from './migrations/billing-migrations';

/** The argument types of billing.apply_bills as its last CREATE FUNCTION declares them. */
function currentSignature(): string[] {
  const definitions = BILLING_MIGRATIONS.flatMap(({ sql }) => [
    ...sql.matchAll(/CREATE(?: OR REPLACE)? FUNCTION billing\.apply_bills\(([^)]*)\)/g),
  ]);
  const declared = definitions[definitions.length - 1][1];
  return declared.split(',').map((argument) => argument.trim().split(/\s+/)[1]);
}

const bill: FilingBill = {
  requestId: 'req_1',
  accountId: 'acct_1',
  model: 'vendor-v4-flash',
  paid: true,
  promptTokens: 10,
  completionTokens: 20,
  usageEstimated: false,
  heldMicro: 500,
  inputMicroPerMillion: 1_000_000,
  outputMicroPerMillion: 4_000_000,
  chargeMicro: 90,
  endReason: 'complete',
  requestAt: undefined,
  setAside: 'too-late',
  keyId: 'key_1',
};

describe('apply_bills arguments', () => {
  it('follow the current definition of billing.apply_bills, type for type', () => {
    expect(APPLY_BILLS_ARGUMENT_ORDER.map(([, type]) => type)).toEqual(currentSignature());
  });

  it('put each field of the bills and returns in the array of its column', () => {
    const args = applyBillsArguments([bill], [{ accountId: 'acct_2', returnedTotalMicro: 7 }]);
    expect(args).toMatchObject({ requestId: ['req_1'], chargeMicro: [90], requestAt: [null], setAside: ['too-late'] });
    expect(args).toMatchObject({ returnAccountId: ['acct_2'], returnedTotalMicro: [7], endReason: ['complete'], keyId: ['key_1'] });
    expect(applyBillsArguments([{ ...bill, keyId: undefined }], []).keyId).toEqual([null]);
    const parameters = applyBillsParameters(args);
    expect(parameters).toHaveLength(17);
    expect(parameters[0]).toEqual(['req_1']);
    expect(parameters[11]).toEqual(['acct_2']);
    expect(parameters[15]).toEqual(['too-late']);
    expect(parameters[16]).toEqual(['key_1']);
  });
});
