/** The request/response types the server works with: node:http2's compat API, which also serves HTTP/1.1. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Http2ServerRequest, Http2ServerResponse } from 'node:http2';

export type Request = IncomingMessage | Http2ServerRequest;
export type Response = ServerResponse | Http2ServerResponse;

/** Writes `chunk`, resolving once the socket buffer has room again (backpressure for large bodies and watches). */
export function writeAndDrain(res: Response, chunk: Buffer | string): Promise<void> | undefined {
  const ok = (res as ServerResponse).write(chunk);
  if (ok) return undefined;
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}
