import { ServerDuplexStream, status } from '@grpc/grpc-js';
import { authV1 } from '@gw/contracts';
import { DomainError } from '@gw/errors';
import { grpcCodeOf } from '@gw/service-kit';
import { IdentityChangeHub } from '../domain/identity-change-hub';

type WatchCall = ServerDuplexStream<authV1.WatchIdentityChangesRequest, authV1.WatchIdentityChangesResponse>;

/**
 * auth.v1 WatchIdentityChanges: one edge's stream, registered with the hub until it closes. An
 * acknowledgement the hub refuses (a change never sent) ends the stream with its status; a sync
 * is answered by a later heartbeat (IdentityChangeHub.takeSyncs).
 */
export function watchIdentityChanges(hub: IdentityChangeHub): (call: WatchCall) => void {
  return (call) => {
    let open = true;
    const watcher = {
      send: (message: authV1.WatchIdentityChangesResponse) => {
        if (open) call.write(message);
      },
      end: (reason: string) => {
        if (!open) return;
        open = false;
        call.emit('error', { code: status.UNAVAILABLE, details: reason });
      },
    };
    const handle = hub.add(watcher);
    const close = () => {
      open = false;
      handle.remove();
    };
    call.on('data', (request: authV1.WatchIdentityChangesRequest) => {
      try {
        handle.acknowledge(request.appliedSequence);
        if (request.sync) handle.sync(request.sync);
      } catch (err) {
        if (!(err instanceof DomainError)) throw err;
        close();
        call.emit('error', { code: grpcCodeOf(err), details: err.message });
      }
    });
    call.on('end', () => {
      close();
      call.end();
    });
    call.on('cancelled', close);
    call.on('error', close);
    call.on('close', close);
  };
}
