/**
 * The outermost filter (upstream `server/filters/wrap.go` WithPanicRecovery): whatever a later filter or handler
 * throws becomes the answer. Here that is also how they answer with an error: a StatusError becomes its Status
 * (upstream handlers write theirs through responsewriters), anything else a 500 that is logged as unhandled; once
 * headers are out the response is cut off instead.
 */
import type { Handler } from '../handler.ts';
import { writeError } from '../responsewriters.ts';

export function withPanicRecovery(handler: Handler): Handler {
  return async function panicRecovery(req, res, ctx) {
    try {
      await handler(req, res, ctx);
    } catch (e) {
      writeError(res, e);
    }
  };
}
