/**
 * The one place where results and errors become HTTP responses (upstream `handlers/responsewriters`). Objects are
 * written from their stored bytes; only pretty, YAML and Table output decode them again.
 */
import type { ServerHttp2Stream } from 'node:http2';
import { goJSON, prettyJSON, toYAML } from '../apimachinery/codec/encode.ts';
import { StatusError, newInternalError } from '../apimachinery/errors.ts';
import type { Response } from './http-types.ts';
import type { Negotiated } from './negotiation.ts';
import { log } from '../util/log.ts';

const NEWLINE = Buffer.from('\n');

export const JSON_NEGOTIATED: Negotiated = { mediaType: 'application/json', pretty: false };

function contentType(n: Negotiated): string {
  return n.mediaType;
}

/** Writes a JSON-able value in the negotiated media type. */
export function writeValue(res: Response, code: number, value: unknown, n: Negotiated = JSON_NEGOTIATED, headers?: Record<string, string>): void {
  let body: string;
  if (n.mediaType === 'application/yaml') body = toYAML(value);
  else if (n.pretty) body = prettyJSON(value);
  else body = goJSON(value) + '\n';
  const buf = Buffer.from(body);
  res.writeHead(code, { ...headers, 'content-type': contentType(n), 'content-length': String(buf.length) });
  res.end(buf);
}

/** Writes serialized object bytes as they are when the client wants plain JSON; re-encodes otherwise. */
export function writeBytes(res: Response, code: number, value: Buffer, n: Negotiated = JSON_NEGOTIATED, headers?: Record<string, string>): void {
  if (n.mediaType === 'application/json' && !n.pretty) {
    // One buffer: headers and body then leave in a single write.
    const body = Buffer.concat([value, NEWLINE], value.length + 1);
    res.writeHead(code, { ...headers, 'content-type': 'application/json', 'content-length': String(body.length) });
    res.end(body);
    return;
  }
  writeValue(res, code, JSON.parse(value.toString('utf8')), n, headers);
}

/** Turns any thrown value into a Status response; anything that is not a StatusError is logged as a 500. */
export function writeError(res: Response, err: unknown, n: Negotiated = JSON_NEGOTIATED): void {
  let se: StatusError;
  if (err instanceof StatusError) se = err;
  else {
    log.error('Unhandled error', { err: err instanceof Error ? (err.stack ?? err.message) : String(err) });
    se = newInternalError(err);
  }
  if (res.headersSent) {
    res.destroy?.();
    return;
  }
  const headers: Record<string, string> = {};
  const retry = se.details?.retryAfterSeconds;
  if (retry && retry > 0) headers['retry-after'] = String(retry);
  if (se.code === 406) {
    // The 406 body itself cannot be negotiated: upstream writes indented JSON.
    writeValue(res, 406, se.toStatus(), { mediaType: 'application/json', pretty: true }, headers);
    return;
  }
  writeValue(res, se.code, se.toStatus(), n.as ? { mediaType: n.mediaType, pretty: n.pretty } : n, headers);
}

/** Plain-text answers upstream gives outside the Status machinery (404 page not found; the 429 is below). */
export function writeText(res: Response, code: number, text: string, headers?: Record<string, string>): void {
  const buf = Buffer.from(text);
  res.writeHead(code, { ...headers, 'content-type': 'text/plain; charset=utf-8', 'x-content-type-options': 'nosniff', 'content-length': String(buf.length) });
  res.end(buf);
}

const TOO_MANY_REQUESTS_BODY = Buffer.from('Too many requests, please try again later.\n');
/** Upstream's max-in-flight refusal (plain text, `Retry-After: 1`), built once: it is the answer an overloaded server gives most. */
const TOO_MANY_REQUESTS_HEADERS = Object.freeze({
  'cache-control': 'no-cache, private',
  'retry-after': '1',
  'content-type': 'text/plain; charset=utf-8',
  'x-content-type-options': 'nosniff',
  'content-length': String(TOO_MANY_REQUESTS_BODY.length),
});
const TOO_MANY_REQUESTS_H2 = Object.freeze({ ':status': 429, ...TOO_MANY_REQUESTS_HEADERS });

/** The max-in-flight 429 on a request/response pair. */
export function writeTooManyRequests(res: Response): void {
  res.writeHead(429, TOO_MANY_REQUESTS_HEADERS);
  res.end(TOO_MANY_REQUESTS_BODY);
}

function ignoreError(): void {}

/**
 * The same 429 written on a raw HTTP/2 stream at header time, before any request object exists. The body is left
 * unread on purpose: node then closes the answered stream with RST_STREAM(NO_ERROR), which tells the client to stop
 * sending it (RFC 9113 §8.1). Reading it instead keeps every refused stream open until its last DATA frame, and
 * under a flood the session then runs out of streams and is torn down (ENHANCE_YOUR_CALM).
 */
export function respondTooManyRequests(stream: ServerHttp2Stream): void {
  // A client that resets the connection meanwhile has nobody left to tell; node's compat layer ignores it too.
  stream.on('error', ignoreError);
  stream.respond(TOO_MANY_REQUESTS_H2);
  stream.end(TOO_MANY_REQUESTS_BODY);
}
