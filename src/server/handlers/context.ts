/** What every REST handler gets: the request, its parsed info and identity, and the resource it addresses. */
import type { AdmissionChain } from '../../admission/chain.ts';
import type { UserInfo } from '../../auth/authenticator/user.ts';
import type { Authorizer } from '../../auth/authorizer/interface.ts';
import type { ResourceScope } from '../../registry/rest/scope.ts';
import type { Request, Response } from '../http-types.ts';
import type { RequestInfo } from '../request-info.ts';

export interface RequestContext {
  req: Request;
  res: Response;
  query: URLSearchParams;
  info: RequestInfo;
  user: UserInfo;
  scope: ResourceScope;
  /** The admission plugins every write passes (an empty chain until an AdmissionConfiguration names some). */
  admission: AdmissionChain;
  /** For checks a handler makes beyond the request's own verb (the unsafe delete's `unsafe-delete-ignore-read-errors`). */
  authorizer?: Authorizer;
  /** performance.now() when the request arrived (WATCHLIST latency is measured from it). */
  receivedAt: number;
  /** Warning headers to send (already in `299 - "..."` form is done by the writer). */
  warnings: string[];
  /** The size of the request body once read (apiserver_request_body_size_bytes). */
  bodyBytes?: number;
}

/** `Warning: 299 - "<text>"` values, de-duplicated, within upstream's budget (4096 runes, then 256 each). */
export function warningHeaders(warnings: string[]): string[] {
  const unique = [...new Set(warnings)];
  let total = 0;
  for (const w of unique) total += [...w].length;
  const texts = total > 4096 ? unique.map((w) => ([...w].length > 256 ? [...w].slice(0, 256).join('') : w)) : unique;
  return texts.map((w) => `299 - "${w.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`);
}

export function setWarnings(ctx: RequestContext): void {
  if (!ctx.warnings.length) return;
  // The authentication filter may have warned already (an ignored bearer token): both are sent.
  const earlier = ctx.res.getHeader('warning');
  const mine = warningHeaders(ctx.warnings);
  ctx.res.setHeader('warning', earlier === undefined ? mine : [...(Array.isArray(earlier) ? earlier : [String(earlier)]), ...mine]);
}
