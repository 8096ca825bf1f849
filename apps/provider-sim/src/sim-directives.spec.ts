import { parseDirectives } from './sim-directives';

describe('parseDirectives', () => {
  it('finds nothing in plain text and leaves it as it was', () => {
    expect(parseDirectives('hello there')).toEqual({ directives: {}, text: 'hello there', problems: [] });
  });

  it('reads each directive and removes the markers from the text', () => {
    const parsed = parseDirectives('[[sim:delay_ms=500]] hi [[sim:piece_delay_ms=50]] there [[sim:break_after=3]]');
    expect(parsed.directives).toEqual({ delayMs: 500, pieceDelayMs: 50, breakAfter: 3 });
    expect(parsed.text).toBe('hi   there');
    expect(parsed.problems).toEqual([]);
  });

  it('combines several items in one marker, separated by commas, semicolons or spaces', () => {
    const parsed = parseDirectives('go [[sim:status=503, non_json;empty words=7 drop]]');
    expect(parsed.directives).toEqual({ status: 503, nonJson: true, empty: true, words: 7, drop: true });
    expect(parsed.text).toBe('go');
  });

  it('lets a later item of the same name win', () => {
    expect(parseDirectives('[[sim:words=2]] [[sim:words=5]]').directives).toEqual({ words: 5 });
  });

  it('accepts zero where zero makes sense', () => {
    expect(parseDirectives('[[sim:words=0,delay_ms=0]]').directives).toEqual({ words: 0, delayMs: 0 });
  });

  it.each([
    ['[[sim:delay=5]]', 'unknown sim directive "delay"'],
    ['[[sim:constructor]]', 'unknown sim directive "constructor"'],
    ['[[sim:words]]', 'sim directive words needs a whole number, as in words=0'],
    ['[[sim:words=-1]]', 'sim directive words needs a whole number, as in words=0'],
    ['[[sim:words=1.5]]', 'sim directive words needs a whole number, as in words=0'],
    ['[[sim:words=1=2]]', 'sim directive words needs a whole number, as in words=0'],
    ['[[sim:status=200]]', 'sim directive status must be 400..599'],
    ['[[sim:break_after=0]]', 'sim directive break_after must be 1..10000000'],
    ['[[sim:words=100001]]', 'sim directive words must be 0..100000'],
    ['[[sim:empty=1]]', 'sim directive empty takes no value'],
    ['[[sim:drop=yes]]', 'sim directive drop takes no value'],
  ])('reports %s as a problem', (text, problem) => {
    const parsed = parseDirectives(text);
    expect(parsed.problems).toEqual([problem]);
    expect(parsed.directives).toEqual({});
  });

  it('keeps the good items when another item is bad', () => {
    const parsed = parseDirectives('[[sim:words=3,nope]]');
    expect(parsed.directives).toEqual({ words: 3 });
    expect(parsed.problems).toHaveLength(1);
  });

  it('ignores text that only looks like a marker', () => {
    const parsed = parseDirectives('[[simulate:words=3]] [sim:words=3] [[sim:words=3]');
    expect(parsed.directives).toEqual({});
    expect(parsed.problems).toEqual([]);
  });
});
