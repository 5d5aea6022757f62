/**
 * Upstream `endpoints/filters/cachecontrol.go`: API answers are per user and change all the time, so no cache may
 * keep them. Handlers that know better (none yet) may set their own header.
 */
import type { Handler } from '../handler.ts';

export function withCacheControl(handler: Handler): Handler {
  return function cacheControl(req, res, ctx) {
    res.setHeader('cache-control', 'no-cache, private');
    return handler(req, res, ctx);
  };
}
