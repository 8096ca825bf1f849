import { isNamedClient } from './refuse-library-clients';

const NAMES = ['Python-urllib', 'Go-http-client', 'Java', 'Ruby'];

describe('isNamedClient', () => {
  it.each(['Python-urllib/3.12', 'python-urllib/3.8', 'Go-http-client/1.1', 'Java/1.8.0_392', 'Ruby', 'Java 21'])(
    '%s is a named default',
    (agent) => {
      expect(isNamedClient(agent, NAMES)).toBe(true);
    },
  );

  it.each([
    undefined,
    '',
    'curl/8.5.0',
    'OpenAI/JS 6.49.0',
    'python-requests/2.32',
    'JavaScript/1.0',
    'Rubygems/3',
    'app/1 Python-urllib/3.12',
  ])('%s is not', (agent) => {
    expect(isNamedClient(agent, NAMES)).toBe(false);
  });

  it('refuses nothing with an empty list', () => {
    expect(isNamedClient('Python-urllib/3.12', [])).toBe(false);
  });
});
