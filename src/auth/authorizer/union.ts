/**
 * Several authorizers as one (upstream `authorization/union`): asked in order, the first Allow or Deny is the
 * answer, with its reason and error; NoOpinion goes on to the next. When every one abstains the answer is
 * NoOpinion with their reasons joined by newlines and their errors aggregated.
 */
import { aggregateErrors } from '../aggregate.ts';
import { type Attributes, type AuthorizationResult, type Authorizer, NO_OPINION } from './interface.ts';

type Answer = AuthorizationResult | Promise<AuthorizationResult>;

export class UnionAuthorizer implements Authorizer {
  readonly #authorizers: readonly Authorizer[];

  constructor(authorizers: readonly Authorizer[]) {
    this.#authorizers = [...authorizers];
  }

  /**
   * Answers synchronously as long as every authorizer it asks does. One that throws or rejects abstains with that
   * error (upstream authorizers return theirs), so the next one is still asked.
   */
  authorize(a: Attributes): Answer {
    let abstained: AuthorizationResult[] | undefined;
    for (let i = 0; i < this.#authorizers.length; i++) {
      const r = this.#ask(i, a);
      if (r instanceof Promise) return this.#authorizeFrom(a, i, r, abstained);
      if (r.decision !== 'NoOpinion') return r;
      if (r.reason || r.error) (abstained ??= []).push(r);
    }
    return abstained ? noOpinion(abstained) : NO_OPINION;
  }

  /** The rest of the union once authorizer `i` needed I/O (`pending` is its answer). */
  async #authorizeFrom(a: Attributes, i: number, pending: Answer, abstained: AuthorizationResult[] | undefined): Promise<AuthorizationResult> {
    for (;;) {
      const r = await pending;
      if (r.decision !== 'NoOpinion') return r;
      if (r.reason || r.error) (abstained ??= []).push(r);
      if (++i >= this.#authorizers.length) break;
      pending = this.#ask(i, a);
    }
    return abstained ? noOpinion(abstained) : NO_OPINION;
  }

  #ask(i: number, a: Attributes): Answer {
    try {
      const r = this.#authorizers[i]!.authorize(a);
      return r instanceof Promise ? r.catch(failed) : r;
    } catch (e) {
      return failed(e);
    }
  }
}

function failed(e: unknown): AuthorizationResult {
  return { decision: 'NoOpinion', reason: '', error: e instanceof Error ? e : new Error(String(e)) };
}

function noOpinion(abstained: readonly AuthorizationResult[]): AuthorizationResult {
  const reasons = abstained.filter((r) => r.reason).map((r) => r.reason);
  const errors = abstained.flatMap((r) => (r.error ? [r.error] : []));
  return { decision: 'NoOpinion', reason: reasons.join('\n'), error: errors.length ? aggregateErrors(errors) : undefined };
}
