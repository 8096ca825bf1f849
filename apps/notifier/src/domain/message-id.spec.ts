import { domainOf, messageIdOf } from './message-id';

describe('Message-ID', () => {
  it('is the same for the same event and recipient, whatever the case of the address, and differs for any other', () => {
    const id = messageIdOf('billing-service', 42, 'Ann@Example.com', 'Gateway <no-reply@mail.example.com>');
    expect(id).toMatch(/^billing-service\.42\.[0-9a-f]{16}@mail\.example\.com$/);
    expect(messageIdOf('billing-service', 42, ' ann@example.com', 'no-reply@mail.example.com')).toBe(id);
    expect(messageIdOf('billing-service', 43, 'ann@example.com', 'no-reply@mail.example.com')).not.toBe(id);
    expect(messageIdOf('auth-service', 42, 'ann@example.com', 'no-reply@mail.example.com')).not.toBe(id);
    expect(messageIdOf('billing-service', 42, 'bob@example.com', 'no-reply@mail.example.com')).not.toBe(id);
    expect(id).not.toContain('ann');
  });

  it("takes the From address's domain, or a domain that cannot exist when it has none", () => {
    expect(domainOf('Gateway console <no-reply@Gateway.Example>')).toBe('gateway.example');
    expect(domainOf('no-reply@example.org')).toBe('example.org');
    expect(domainOf('no-reply')).toBeUndefined();
    expect(messageIdOf('auth-service', 1, 'a@b.c', 'nobody')).toMatch(/@notifier\.invalid$/);
  });
});
