import { identityOf } from './caller-identity';

describe('identityOf', () => {
  it('reads the identity from the spiffe://chat-gateway URI SAN before the common name', () => {
    expect(identityOf({ subjectaltname: 'DNS:localhost, URI:spiffe://chat-gateway/edge', subject: { CN: 'other' } })).toBe('edge');
  });

  it('falls back to the common name when no URI SAN of the trust domain is there', () => {
    expect(identityOf({ subjectaltname: 'URI:spiffe://elsewhere/edge', subject: { CN: 'ctl' } })).toBe('ctl');
    expect(identityOf({ subject: { CN: ['chat-product', 'x'] } })).toBe('chat-product');
  });

  it('names nobody for a certificate with neither', () => {
    expect(identityOf({ subjectaltname: 'DNS:localhost', subject: {} })).toBeUndefined();
    expect(identityOf({ subject: { CN: '' } })).toBeUndefined();
  });
});
