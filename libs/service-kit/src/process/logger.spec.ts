import { createLogger } from './logger';

function capture() {
  const lines: string[] = [];
  return { lines, write: (line: string) => lines.push(line) };
}

describe('createLogger', () => {
  it('writes one JSON line per event with service, level, message and fields', () => {
    const out = capture();
    createLogger('edge', 'info', out.write).child({ requestId: 'r1' }).info('request done', { status: 200 });
    expect(out.lines).toHaveLength(1);
    expect(out.lines[0].endsWith('\n')).toBe(true);
    expect(JSON.parse(out.lines[0])).toMatchObject({ service: 'edge', level: 'info', msg: 'request done', requestId: 'r1', status: 200 });
  });

  it('drops events below the level', () => {
    const out = capture();
    const log = createLogger('edge', 'warn', out.write);
    log.info('quiet');
    log.error('loud');
    expect(out.lines.map((l) => JSON.parse(l).msg)).toEqual(['loud']);
  });

  it('never writes a whole API key, even when one is passed in by mistake', () => {
    const out = capture();
    const key = `sk-shfr-${'ab12'.repeat(10)}`;
    createLogger('edge', 'info', out.write).info(`bad ${key}`, { header: `Bearer ${key}`, err: new Error(key) });
    expect(out.lines[0]).not.toContain(key.slice(8));
    expect(out.lines[0]).toContain('sk-shfr');
  });
});
