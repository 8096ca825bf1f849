import { composeErrors, readCompose } from './compose-errors';

const valid = `
x-common: &common
  restart: unless-stopped
services:
  edge:
    <<: *common
    image: chat-gateway/edge:1.0.0
    environment:
      EDGE_PORT: "8080"
    ports: ["8080:8080"]
`;

describe('composeErrors', () => {
  it('accepts a valid file, merge keys included', () => {
    const compose = readCompose(valid);
    expect((compose.services as Record<string, Record<string, unknown>>).edge.restart).toBe('unless-stopped');
    expect(composeErrors(compose)).toEqual([]);
  });

  it('refuses a wrong type and an unknown key, naming both', () => {
    const compose = readCompose(valid.replace('restart: unless-stopped', 'restart: 5').replace('ports:', 'portz:'));
    expect(composeErrors(compose)).toEqual(
      expect.arrayContaining(['/services/edge/restart must be string', '/services/edge must NOT have additional properties: portz']),
    );
  });
});
