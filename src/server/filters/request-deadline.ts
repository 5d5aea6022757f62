/**
 * The request deadline (upstream `endpoints/filters/request_deadline.go` WithRequestDeadline, with the answer of
 * `server/filters/timeout.go` WithTimeoutForNonLongRunningRequests): a request that is not a watch gets
 * --request-timeout, shortened by a valid `?timeout=` (a Go duration); when its handler has not answered by then
 * the client gets 504 Timeout, and what the handler does afterwards reaches nobody. A response already under way when
 * the deadline passes cannot become a 504: as upstream, it is cut off (HTTP/2 resets the stream, HTTP/1.1 closes the
 * connection), so the client sees an incomplete answer rather than a complete-looking one.
 */
import { newBadRequest, newTimeout } from '../../apimachinery/errors.ts';
import { parseGoDuration } from '../../apimachinery/duration.ts';
import { log } from '../../util/log.ts';
import type { Handler } from '../handler.ts';
import type { Response } from '../http-types.ts';
import { writeError } from '../responsewriters.ts';
import type { FilterOutcomes } from './filter-latency.ts';
import { requestInfoOf } from './request-info.ts';

/** Responses the deadline answered with 504 while their handler was still at work. */
const timedOut = new WeakSet<Response>();

export function withRequestDeadline(handler: Handler, requestTimeoutMs: number, outcomes?: FilterOutcomes): Handler {
  return async function requestDeadline(req, res, ctx) {
    const info = requestInfoOf(ctx);
    if (info.verb === 'watch') return handler(req, res, ctx);
    const ms = requestDeadlineMs(ctx.query, requestTimeoutMs);
    if (ms <= 0) return handler(req, res, ctx);
    const timer = setTimeout(() => {
      if (res.writableFinished) return;
      timedOut.add(res);
      outcomes?.terminated(req.method ?? 'GET', req.headers['content-type'], info, 504);
      if (res.headersSent) {
        outcomes?.aborted(req.method ?? 'GET', req.headers['content-type'], info);
        res.destroy();
      } else writeError(res, newTimeout('request did not complete within the allotted timeout', 0));
    }, Math.min(ms, 2 ** 31 - 1));
    // The deadline alone never keeps the process up (the server's sockets do).
    timer.unref();
    res.once('close', () => clearTimeout(timer));
    try {
      await handler(req, res, ctx);
      if (timedOut.has(res)) outcomes?.postTimeout('timeout-handler', 'ok');
    } catch (e) {
      if (!timedOut.has(res)) throw e;
      // A late error (typically the handler writing its own answer after the 504) is upstream's post-timeout
      // activity: logged, counted, not answered, and not an unhandled error.
      outcomes?.postTimeout('timeout-handler', 'panic');
      log.V(2).info('post-timeout activity', { URI: req.url ?? '', err: e instanceof Error ? e.message : String(e) });
    }
  };
}

/**
 * How long a request may take, in ms (0: no limit): --request-timeout, or a shorter positive `?timeout=`. Throws the
 * 400 an invalid `?timeout=` gets.
 */
export function requestDeadlineMs(query: URLSearchParams, requestTimeoutMs: number): number {
  let ms = requestTimeoutMs;
  const param = query.get('timeout');
  if (param) {
    let asked: number;
    try {
      asked = parseGoDuration(param);
    } catch {
      throw newBadRequest('invalid timeout specified in the request URL');
    }
    if (asked > 0) ms = ms > 0 ? Math.min(ms, asked) : asked;
  }
  return ms;
}
