/**
 * The request/response types the server works with. node:http2's compat objects (Http2ServerRequest/Response) offer
 * the members of IncomingMessage/ServerResponse we use, and HTTP/1.1 connections get the real ones; typing both as
 * the http1 classes keeps overloads like writeHead callable (a union of overloaded methods is not).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

export type Request = IncomingMessage;
export type Response = ServerResponse;

/** Writes `chunk`, resolving once the socket buffer has room again (backpressure for large bodies and watches). */
export function writeAndDrain(res: Response, chunk: Buffer | string): Promise<void> | undefined {
  const ok = (res as ServerResponse).write(chunk);
  return ok ? undefined : drained(res);
}

/** Resolves when the response's buffer has emptied (after a write returned false) or the response closed. */
export function drained(res: Response): Promise<void> {
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
