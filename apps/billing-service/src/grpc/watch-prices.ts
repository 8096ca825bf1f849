import { ServerDuplexStream, status } from '@grpc/grpc-js';
import { billingV1 } from '@gw/contracts';
import { DomainError } from '@gw/errors';
import { grpcCodeOf } from '@gw/service-kit';
import { PriceWatch, PriceWatchHub } from '../domain/price-watch-hub';
import { toPrice } from './price-wire';

type WatchCall = ServerDuplexStream<billingV1.WatchPricesRequest, billingV1.WatchPricesResponse>;

/**
 * billing.v1 WatchPrices: one quota-service replica's stream, registered with the hub until it
 * closes. The whole table goes out first; an acknowledgement the hub refuses (a version never
 * sent) ends the stream with its status, as does a hub without a table (UNAVAILABLE).
 */
export function watchPrices(hub: PriceWatchHub): (call: WatchCall) => void {
  return (call) => {
    let open = true;
    let watch: PriceWatch | undefined;
    const close = () => {
      open = false;
      watch?.remove();
    };
    const fail = (code: status, details: string) => {
      if (!open) return;
      close();
      call.emit('error', { code, details });
    };
    try {
      watch = hub.add({
        send: (m) => {
          if (open) call.write({ version: m.version, full: m.full, prices: m.prices.map(toPrice) });
        },
        end: (reason) => fail(status.UNAVAILABLE, reason),
      });
    } catch (err) {
      if (!(err instanceof DomainError)) throw err;
      return fail(grpcCodeOf(err) as status, err.message);
    }
    call.on('data', (request: billingV1.WatchPricesRequest) => {
      try {
        watch?.acknowledge(request.version);
      } catch (err) {
        if (!(err instanceof DomainError)) throw err;
        fail(grpcCodeOf(err) as status, err.message);
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
