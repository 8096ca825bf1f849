import { status } from '@grpc/grpc-js';
import { callBatch } from './call-batch';
import { createLogger } from '../process/logger';
import { eachOnItsOwn } from './each-on-its-own';
import { RpcError } from './rpc-error';

const silent = createLogger('test', 'error', () => undefined);
const codeOf = (r: { ok: boolean; err?: unknown }) => (r.ok ? status.OK : (r.err as { code: number }).code);

describe('a batch call: eachOnItsOwn on the server, callBatch on the caller', () => {
  const double = async (n: number) => {
    if (n < 0) throw new RpcError(status.INVALID_ARGUMENT, `${n} is negative`);
    if (n === 13) throw new Error('unlucky');
    return n * 2;
  };
  const many = (items: number[]) => eachOnItsOwn(items, double, silent, 'Double');

  it('gives each item its own result or its own error, in order', async () => {
    const results = await callBatch([1, -1, 13, 4], many, double);
    expect(results.map(codeOf)).toEqual([status.OK, status.INVALID_ARGUMENT, status.INTERNAL, status.OK]);
    expect(results.filter((r) => r.ok)).toEqual([
      { ok: true, value: 2 },
      { ok: true, value: 8 },
    ]);
    expect((results[1] as { err: Error }).err.message).toBe('-1 is negative');
    expect((results[2] as { err: Error }).err.message).toBe('internal error');
  });

  it('refuses more than 256 items at once', async () => {
    await expect(many(Array.from({ length: 257 }, () => 1))).rejects.toMatchObject({ code: status.INVALID_ARGUMENT });
  });

  it('makes one call per item when the server has no batch method, and fails every item with a failed call', async () => {
    const unimplemented = async () => Promise.reject(Object.assign(new Error('no such method'), { code: status.UNIMPLEMENTED }));
    expect(await callBatch([1, 2, -3], unimplemented, double)).toEqual([
      { ok: true, value: 2 },
      { ok: true, value: 4 },
      expect.objectContaining({ ok: false }),
    ]);
    const down = Object.assign(new Error('down'), { code: status.UNAVAILABLE });
    expect(await callBatch([1, 2], () => Promise.reject(down), double)).toEqual([
      { ok: false, err: down },
      { ok: false, err: down },
    ]);
  });

  it('fails an item the answer left out', async () => {
    const short = async (items: number[]) => (await many(items)).slice(0, 1);
    const results = await callBatch([1, 2], short, double);
    expect(results.map(codeOf)).toEqual([status.OK, status.INTERNAL]);
  });
});
