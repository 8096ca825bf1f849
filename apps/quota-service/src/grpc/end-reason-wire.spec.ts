import { quotaV1 } from '@gw/contracts';
import { endReasonOf } from './end-reason-wire';

const { EndReason } = quotaV1;

describe('endReasonOf', () => {
  it('reads each end reason quota.v1 names by its name, not its position', () => {
    expect(endReasonOf(EndReason.END_REASON_COMPLETE)).toEqual({ endReason: 'complete' });
    expect(endReasonOf(EndReason.END_REASON_CALLER_LEFT)).toEqual({ endReason: 'caller-left' });
    expect(endReasonOf(EndReason.END_REASON_PROVIDER_BROKE_OFF)).toEqual({ endReason: 'provider-broke-off' });
    expect(endReasonOf(EndReason.END_REASON_RECOVERED)).toEqual({ endReason: 'recovered' });
  });

  it('records nothing for an older edge (unset, UNSPECIFIED) or a value this replica does not know', () => {
    expect(endReasonOf(undefined)).toEqual({});
    expect(endReasonOf(EndReason.END_REASON_UNSPECIFIED)).toEqual({});
    expect(endReasonOf(EndReason.UNRECOGNIZED)).toEqual({});
    expect(endReasonOf(99 as quotaV1.EndReason)).toEqual({});
  });
});
