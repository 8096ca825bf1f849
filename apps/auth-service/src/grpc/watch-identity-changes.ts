import { ServerDuplexStream, status } from '@grpc/grpc-js';
import { authV1 } from '@gw/contracts';
import { IdentityChangeHub } from '../domain/identity-change-hub';

type WatchCall = ServerDuplexStream<authV1.WatchIdentityChangesRequest, authV1.WatchIdentityChangesResponse>;

/** auth.v1 WatchIdentityChanges: one edge's stream, registered with the hub until it closes. */
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
    call.on('data', (request: authV1.WatchIdentityChangesRequest) => handle.acknowledge(request.appliedSequence));
    call.on('end', () => {
      close();
      call.end();
    });
    call.on('cancelled', close);
    call.on('error', close);
    call.on('close', close);
  };
}
