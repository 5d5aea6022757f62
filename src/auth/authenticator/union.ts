/**
 * Several authenticators as one (upstream `authentication/request/union`): tried in order, the first that names a
 * user wins; when none does, the errors of those that refused their credential are aggregated (a 401 then), and
 * a request without any credential gets NO_CREDENTIALS. kube-apiserver's order is request-header proxy, x509,
 * bearer tokens; anonymous goes after the union, as a fallback that does not apply once any authenticator failed.
 */
import { aggregateErrors } from '../aggregate.ts';
import { type AuthenticationResult, type Authenticator, type AuthenticatorRequest, NO_CREDENTIALS } from './interface.ts';

export type Answer = AuthenticationResult | Promise<AuthenticationResult>;

export class UnionAuthenticator implements Authenticator {
  readonly #authenticators: readonly Authenticator[];

  constructor(authenticators: readonly Authenticator[]) {
    this.#authenticators = [...authenticators];
  }

  /**
   * Answers synchronously as long as every authenticator it asks does (x509 always does). An authenticator that
   * throws or rejects counts as one that refused the credential: its error joins the others.
   */
  authenticate(req: AuthenticatorRequest): Answer {
    const list = this.#authenticators;
    return firstUser(list.length, (i) => list[i]!.authenticate(req));
  }
}

/**
 * The union's rule over `count` candidates asked in order by `ask(i)`: the first user wins; otherwise the refusals'
 * errors aggregated, or NO_CREDENTIALS. Shared by the request union and the token union (token.ts).
 */
export function firstUser(count: number, ask: (i: number) => Answer): Answer {
  let errors: Error[] | undefined;
  for (let i = 0; i < count; i++) {
    const r = safely(ask, i);
    if (r instanceof Promise) return firstUserFrom(count, ask, i, r, errors);
    if (r.user) return r;
    if (r.error) (errors ??= []).push(r.error);
  }
  return errors ? { user: null, error: aggregateErrors(errors) } : NO_CREDENTIALS;
}

/** The rest of the union once candidate `i` needed I/O (`pending` is its answer). */
async function firstUserFrom(count: number, ask: (i: number) => Answer, i: number, pending: Answer, errors: Error[] | undefined): Promise<AuthenticationResult> {
  for (;;) {
    const r = await pending;
    if (r.user) return r;
    if (r.error) (errors ??= []).push(r.error);
    if (++i >= count) break;
    pending = safely(ask, i);
  }
  return errors ? { user: null, error: aggregateErrors(errors) } : NO_CREDENTIALS;
}

/** Candidate `i`'s answer, a throw or rejection turned into a refusal. */
function safely(ask: (i: number) => Answer, i: number): Answer {
  try {
    const r = ask(i);
    return r instanceof Promise ? r.catch(refusal) : r;
  } catch (e) {
    return refusal(e);
  }
}

function refusal(e: unknown): AuthenticationResult {
  return { user: null, error: e instanceof Error ? e : new Error(String(e)) };
}
