import { quotaV1 } from '@gw/contracts';
import { endReasonOf } from './end-reason';

const { END_REASON_COMPLETE, END_REASON_CALLER_LEFT, END_REASON_PROVIDER_BROKE_OFF } = quotaV1.EndReason;

describe('endReasonOf', () => {
  it('is complete when the whole reply reached the caller', () => {
    expect(endReasonOf(true, 'delivered')).toBe(END_REASON_COMPLETE);
  });

  it('is the caller leaving when the reply was read whole after the caller went away', () => {
    expect(endReasonOf(true, 'left')).toBe(END_REASON_CALLER_LEFT);
  });

  it('is the provider breaking off when its reply did not come whole, whatever the caller did', () => {
    for (const caller of ['delivered', 'left', 'cut-for-silence', 'failed'] as const)
      expect(endReasonOf(false, caller)).toBe(END_REASON_PROVIDER_BROKE_OFF);
  });

  it("is the provider breaking off when the caller was cut off for the provider's silence", () => {
    expect(endReasonOf(true, 'cut-for-silence')).toBe(END_REASON_PROVIDER_BROKE_OFF);
  });
});
