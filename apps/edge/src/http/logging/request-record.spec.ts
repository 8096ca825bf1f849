import { ServerResponse } from 'node:http';
import { OVERHEAD_HEADER, RequestRecord } from './request-record';

/** A reply that keeps the headers set on it. */
const fakeReply = () => {
  const headers = new Map<string, string>();
  return { headers, res: { setHeader: (name: string, value: string) => headers.set(name, value) } as unknown as ServerResponse };
};

describe('RequestRecord', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  const passes = (ms: number) => jest.advanceTimersByTime(ms);

  it('reports as overhead the time not spent waiting for the whole reply', () => {
    const record = new RequestRecord(() => undefined);
    record.reportsOverhead = true;
    passes(3);
    record.called();
    passes(100);
    record.answered();
    passes(50);
    record.ended();
    passes(2);
    const { headers, res } = fakeReply();
    record.stampOverhead(res);
    expect(headers.get(OVERHEAD_HEADER)).toBe('5.000');
    expect(record.overheadMs).toBe(5);
  });

  it('for a stream, counts only the wait for the provider headers: the caller headers go out then', () => {
    const record = new RequestRecord(() => undefined);
    record.reportsOverhead = true;
    passes(4);
    record.called();
    passes(30);
    record.answered();
    passes(1);
    const { headers, res } = fakeReply();
    record.stampOverhead(res);
    expect(headers.get(OVERHEAD_HEADER)).toBe('5.000');
  });

  it('reports the whole time of a refusal before the provider, and nothing on requests that do not report it', () => {
    const refused = new RequestRecord(() => undefined);
    refused.reportsOverhead = true;
    passes(7);
    const reply = fakeReply();
    refused.stampOverhead(reply.res);
    expect(reply.headers.get(OVERHEAD_HEADER)).toBe('7.000');

    const other = fakeReply();
    new RequestRecord(() => undefined).stampOverhead(other.res);
    expect(other.headers.size).toBe(0);
  });

  it('is over once, when the reply has ended and the awaited work has settled, in either order', async () => {
    jest.useRealTimers();
    const over = jest.fn();
    const record = new RequestRecord(over);
    let finish!: () => void;
    record.awaits(new Promise<void>((resolve) => (finish = resolve)));
    record.replyEnded();
    await Promise.resolve();
    expect(over).not.toHaveBeenCalled();
    finish();
    await new Promise((r) => setImmediate(r));
    expect(over).toHaveBeenCalledTimes(1);
    expect(over).toHaveBeenCalledWith(record);

    const failedFirst = jest.fn();
    const other = new RequestRecord(failedFirst);
    other.awaits(Promise.reject(new Error('gone')));
    await new Promise((r) => setImmediate(r));
    other.replyEnded();
    expect(failedFirst).toHaveBeenCalledTimes(1);
  });
});
