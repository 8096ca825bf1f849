import { admittedMs, clockRefusal, uuid7Ms } from './bill-time';

const WINDOW = { lateWindowMs: 25 * 3600_000, aheadMs: 300_000 };
const NOW = Date.parse('2026-11-28T12:00:00Z');

describe('a bill against billing-service clock', () => {
  it('takes the admitted time, else the time inside a UUIDv7 billing id, else none', () => {
    const id = '019ac9a3-6c00-7abc-8def-0123456789ab';
    expect(uuid7Ms(id)).toBe(0x019ac9a36c00);
    expect(admittedMs({ requestId: id, admittedAtMs: NOW })).toBe(NOW);
    expect(admittedMs({ requestId: id })).toBe(0x019ac9a36c00);
    expect(admittedMs({ requestId: 'req_older_form' })).toBeUndefined();
    expect(uuid7Ms('019ac9a3-6c00-4abc-8def-0123456789ab')).toBeUndefined();
  });

  it('files a bill within the late-bill window behind and the skew ahead, and refuses one beyond either', () => {
    expect(clockRefusal(NOW - WINDOW.lateWindowMs, NOW, WINDOW)).toBeUndefined();
    expect(clockRefusal(NOW - WINDOW.lateWindowMs - 1, NOW, WINDOW)).toBe('too-late');
    expect(clockRefusal(NOW - 100 * 24 * 3600_000, NOW, WINDOW)).toBe('too-late');
    expect(clockRefusal(NOW + WINDOW.aheadMs, NOW, WINDOW)).toBeUndefined();
    expect(clockRefusal(NOW + WINDOW.aheadMs + 1, NOW, WINDOW)).toBe('ahead');
    expect(clockRefusal(undefined, NOW, WINDOW)).toBeUndefined();
  });
});
