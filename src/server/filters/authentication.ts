/**
 * The authentication filter (upstream `endpoints/filters/authentication.go`): asks the authenticator who sent the
 * request and puts the user in the context; without one the answer is 401, except on the paths everyone may read
 * (upstream lets the anonymous authenticator name them `system:anonymous`; here they go on without a user).
 */
import { newUnauthorized } from '../../apimachinery/errors.ts';
import type { AuthenticationResult, Authenticator } from '../../auth/authenticator/interface.ts';
import { log } from '../../util/log.ts';
import type { Handler, HandlerContext } from '../handler.ts';
import type { Request, Response } from '../http-types.ts';
import type { FilterLatency } from './filter-latency.ts';

export function withAuthentication(handler: Handler, authenticator: Authenticator, latency?: FilterLatency): Handler {
  function authenticated(r: AuthenticationResult, req: Request, res: Response, ctx: HandlerContext, started: number): Promise<void> {
    // Upstream tracks this filter up to the next handler or the 401 alike.
    if (latency) latency.filterLatency('authentication', (performance.now() - started) / 1000);
    if (r.user) ctx.user = r.user;
    else if (!ctx.publicPath) {
      // Upstream logs this as an error; at the default verbosity that would be a line per request of a client
      // whose certificate has expired, and the client learns nothing from it either way.
      if (r.error) log.V(2).info('Unable to authenticate the request', { err: r.error.message });
      throw newUnauthorized();
    }
    return handler(req, res, ctx);
  }
  return function authentication(req, res, ctx) {
    const started = latency ? performance.now() : 0;
    const r = authenticator.authenticate(req);
    // A cached answer (x509's, per connection) is used at once: no promise hop on every request.
    return r instanceof Promise ? r.then((answer) => authenticated(answer, req, res, ctx, started)) : authenticated(r, req, res, ctx, started);
  };
}
