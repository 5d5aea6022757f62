/**
 * The request deadline (upstream `endpoints/filters/request_deadline.go` WithRequestDeadline, with the answer of
 * `server/filters/timeout.go` WithTimeoutForNonLongRunningRequests): a request that is not a watch gets
 * --request-timeout, shortened by a valid `?timeout=` (a Go duration); when its handler has not answered by then
 * the client gets 504 Timeout, and what the handler does afterwards reaches nobody.
 */
import { newBadRequest, newTimeout } from '../../apimachinery/errors.ts';
import { parseGoDuration } from '../../apimachinery/duration.ts';
import { log } from '../../util/log.ts';
import type { Handler } from '../handler.ts';
import type { Response } from '../http-types.ts';
import { writeError } from '../responsewriters.ts';
import { requestInfoOf } from './request-info.ts';

/** Responses the deadline answered with 504 while their handler was still at work. */
const timedOut = new WeakSet<Response>();

export function withRequestDeadline(handler: Handler, requestTimeoutMs: number): Handler {
  return async function requestDeadline(req, res, ctx) {
    if (requestInfoOf(ctx).verb === 'watch') return handler(req, res, ctx);
    const ms = requestDeadlineMs(ctx.query, requestTimeoutMs);
    if (ms <= 0) return handler(req, res, ctx);
    const timer = setTimeout(answerTimeout, Math.min(ms, 2 ** 31 - 1), res);
    res.once('close', () => clearTimeout(timer));
    try {
      await handler(req, res, ctx);
    } catch (e) {
      if (!timedOut.has(res)) throw e;
      // A late error (typically the handler writing its own answer after the 504) is upstream's post-timeout
      // activity: logged, not answered, and not an unhandled error.
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

function answerTimeout(res: Response): void {
  if (res.headersSent) return;
  timedOut.add(res);
  writeError(res, newTimeout('request did not complete within the allotted timeout', 0));
}
