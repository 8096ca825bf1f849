const page = (status: number, title: string) =>
  `<html>\r\n<head><title>${status} ${title}</title></head>\r\n<body>\r\n<center><h1>${status} ${title}</h1></center>\r\n</body>\r\n</html>\r\n`;

/**
 * A reply the servers in front of the API give (docs/api.md#what-the-errors-mean-for-callers): not JSON and without
 * x-request-id. Thrown like any error; the error handler writes it.
 */
export class FrontProxyReply extends Error {
  constructor(
    readonly status: number,
    readonly contentType: string,
    readonly body: string,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(`front proxy reply ${status}`);
    this.name = 'FrontProxyReply';
  }
}

/** 413 with an HTML page: the body is over the limit. */
export const bodyTooLarge = (): FrontProxyReply => new FrontProxyReply(413, 'text/html', page(413, 'Request Entity Too Large'));

/** 403 `error code: 1010`: the edge proxy refuses the HTTP client by its User-Agent. */
export const clientRefused = (): FrontProxyReply => new FrontProxyReply(403, 'text/plain; charset=UTF-8', 'error code: 1010');

/** 504 with an HTML page: the API sent nothing for the silence limit. */
export const gatewayTimeout = (): FrontProxyReply => new FrontProxyReply(504, 'text/html', page(504, 'Gateway Time-out'));

/**
 * 503 with an HTML page and Retry-After: the edge is reading as many bodies as it may hold at
 * once. Bodies are read within seconds, so room comes back soon.
 */
export const busyReadingBodies = (): FrontProxyReply =>
  new FrontProxyReply(503, 'text/html', page(503, 'Service Temporarily Unavailable'), { 'Retry-After': '1' });

/** 408 with an HTML page: the request (headers, then the whole body) did not arrive in time. */
export const requestTimedOut = (): FrontProxyReply => new FrontProxyReply(408, 'text/html', page(408, 'Request Time-out'));
