/**
 * The request log (upstream `server/httplog` WithHTTPLogging): at -v=3 one line per request once its response is
 * closed, with its latency and status. It sits outside the request info filter so that a malformed URL's 400 is
 * logged too.
 */
import { log } from '../../util/log.ts';
import type { Handler } from '../handler.ts';
import type { Request, Response } from '../http-types.ts';

export function withHTTPLogging(handler: Handler): Handler {
  return function httpLogging(req, res, ctx) {
    // The clock is read only when the request will be logged.
    if (log.V(3).enabled) {
      const started = process.hrtime.bigint();
      res.once('close', () => logRequest(req, res, started));
    }
    return handler(req, res, ctx);
  };
}

function logRequest(req: Request, res: Response, started: bigint): void {
  const v = log.V(3);
  if (!v.enabled) return;
  v.info('HTTP', {
    verb: req.method ?? '',
    URI: req.url ?? '',
    latency: `${Number(process.hrtime.bigint() - started) / 1e6}ms`,
    userAgent: req.headers['user-agent'] ?? '',
    resp: res.statusCode,
  });
}
