import { resolve } from 'node:path';
import { readGrpcSecurity } from './grpc-security';

describe('readGrpcSecurity', () => {
  it('is mutual TLS by default, with the certificate npm start makes for the identity', () => {
    expect(readGrpcSecurity({}, 'edge')).toEqual({ kind: 'mtls', dir: resolve('.data/tls/edge'), refreshMs: 60_000 });
    expect(readGrpcSecurity({ DATA_DIR: '/var/lib/gw' }, 'ctl')).toEqual({ kind: 'mtls', dir: '/var/lib/gw/tls/ctl', refreshMs: 60_000 });
  });

  it('reads the folder of a mounted Secret and how often to look at it again', () => {
    expect(readGrpcSecurity({ TLS_DIR: '/var/run/tls', TLS_REFRESH_MS: '5000' }, 'edge')).toEqual({
      kind: 'mtls',
      dir: '/var/run/tls',
      refreshMs: 5000,
    });
  });

  it('is plain text only when asked for', () => {
    expect(readGrpcSecurity({ GRPC_INSECURE: 'true', TLS_DIR: '/var/run/tls' }, 'edge')).toEqual({ kind: 'insecure' });
    expect(() => readGrpcSecurity({ GRPC_INSECURE: 'yes' }, 'edge')).toThrow(/GRPC_INSECURE/);
    expect(() => readGrpcSecurity({ TLS_REFRESH_MS: '0' }, 'edge')).toThrow(/TLS_REFRESH_MS/);
  });
});
