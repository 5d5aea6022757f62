/**
 * The webhook authorizer (upstream `apiserver/plugin/pkg/authorizer/webhook`): asks a remote service with a
 * SubjectAccessReview whether the request is allowed.
 *
 * - Match conditions (CEL over the v1 spec as `request`) run first, in order: the first `false` skips the webhook
 *   (NoOpinion, no call); an error with no `false` is a failure; all `true` (or none configured) calls it.
 * - Answers are cached by the whole v1 spec: allowed ones for the authorized TTL, the rest for the unauthorized TTL
 *   (a TTL of 0 disables that side); failures are never cached, nor requests whose attributes are 10,000 bytes or
 *   more (a client could otherwise fill the cache with them).
 * - `allowed` → Allow, `denied` → Deny, neither → NoOpinion, both → Deny with an error; the reason is passed on.
 * - A failure — the call fails, times out, answers a non-2xx or a malformed body, or a condition errors — is the
 *   failure policy's decision (NoOpinion or Deny) carrying the error, which the authorization filter turns into a
 *   500 unless a later authorizer allows, as upstream does.
 */
import type { CompiledExpression } from '../../../cel/environment.ts';
import { celRequest, evaluateMatchCondition } from '../../../cel/authorization.ts';
import { aggregateErrors } from '../../aggregate.ts';
import type { Attributes, AuthorizationResult, Authorizer, Decision } from '../interface.ts';
import { NO_OPINION } from '../interface.ts';
import { LRUExpireCache } from './cache.ts';
import { type Backoff, type FailureKind, WebhookCallError, WebhookClient } from './client.ts';
import type { WebhookConnection } from './kubeconfig.ts';
import { cacheKey, parseStatus, reviewBody, specFor, type SubjectAccessReviewStatus } from './sar.ts';

/** What the authorizer reports; the server registers the catalogue's metrics behind it. */
export interface WebhookRecorder {
  /** One round trip (each retry counts): `apiserver_authorization_webhook_evaluations_total`, `_duration_seconds`. */
  evaluation(result: 'success' | FailureKind, seconds: number): void;
  /** A failed call answered NoOpinion: `apiserver_authorization_webhook_evaluations_fail_open_total`. */
  failOpen(result: FailureKind): void;
  /** Match conditions were evaluated (`_match_condition_evaluation_seconds`), and how it ended. */
  matchConditions(seconds: number, outcome: 'matched' | 'excluded' | 'error'): void;
}

export interface WebhookAuthorizerOptions {
  readonly name: string;
  readonly connection: WebhookConnection;
  readonly subjectAccessReviewVersion: string;
  readonly timeoutMs: number;
  /** 0 disables caching of allowed answers. */
  readonly authorizedTTLMs: number;
  /** 0 disables caching of the other answers. */
  readonly unauthorizedTTLMs: number;
  readonly failurePolicy: 'NoOpinion' | 'Deny';
  readonly matchConditions: readonly CompiledExpression[];
  readonly recorder?: WebhookRecorder;
  readonly backoff?: Backoff;
  /** Upstream's cache size. */
  readonly cacheSize?: number;
  readonly now?: () => number;
  readonly log?: (message: string, err: Error) => void;
  /** The User-Agent of the calls (default `core-apiserver`). */
  readonly userAgent?: string;
}

const MAX_CONTROLLED_ATTR_CACHE_SIZE = 10_000;

export class WebhookAuthorizer implements Authorizer {
  readonly #o: WebhookAuthorizerOptions;
  readonly #client: WebhookClient;
  readonly #cache: LRUExpireCache<SubjectAccessReviewStatus>;
  readonly #decisionOnError: Decision;

  constructor(o: WebhookAuthorizerOptions) {
    this.#o = o;
    this.#client = new WebhookClient(o.connection, o.timeoutMs, o.backoff, o.userAgent);
    this.#cache = new LRUExpireCache(o.cacheSize ?? 8192, o.now);
    this.#decisionOnError = o.failurePolicy === 'Deny' ? 'Deny' : 'NoOpinion';
  }

  get name(): string {
    return this.#o.name;
  }

  authorize(a: Attributes): AuthorizationResult | Promise<AuthorizationResult> {
    const spec = specFor(a);
    if (this.#o.matchConditions.length > 0) {
      const m = this.#match(spec);
      if (m instanceof Error) return this.#failed(m);
      if (!m) return NO_OPINION;
    }
    const key = cacheKey(spec);
    const cached = this.#cache.get(key);
    if (cached) return decide(cached);
    return this.#ask(a, spec, key);
  }

  /** Stops keeping connections to the webhook open (a reload replaced this authorizer). */
  close(): void {
    this.#client.close();
  }

  /** true: ask the webhook; false: excluded; an Error: a condition failed to evaluate and none excluded. */
  #match(spec: ReturnType<typeof specFor>): boolean | Error {
    const started = performance.now();
    const request = celRequest(spec);
    const errors: Error[] = [];
    let outcome: 'matched' | 'excluded' | 'error' = 'matched';
    try {
      for (const c of this.#o.matchConditions) {
        let v: unknown;
        try {
          v = evaluateMatchCondition(c, request);
        } catch (e) {
          errors.push(new Error(`cel evaluation error: expression '${c.expression}' resulted in error: ${(e as Error).message.split('\n')[0]}`));
          continue;
        }
        if (typeof v !== 'boolean') {
          errors.push(new Error(`cel evaluation error: expression '${c.expression}' eval result type should be bool but got ${typeof v}`));
          continue;
        }
        if (!v) {
          outcome = 'excluded';
          return false;
        }
      }
      if (errors.length) {
        outcome = 'error';
        return aggregateErrors(errors);
      }
      return true;
    } finally {
      this.#o.recorder?.matchConditions((performance.now() - started) / 1000, outcome);
    }
  }

  async #ask(a: Attributes, spec: ReturnType<typeof specFor>, key: string): Promise<AuthorizationResult> {
    const version = this.#o.subjectAccessReviewVersion;
    let status: SubjectAccessReviewStatus;
    try {
      status = await this.#client.post(
        reviewBody(spec, version),
        (answer) => parseStatus(answer, version),
        (result, seconds) => this.#o.recorder?.evaluation(result, seconds),
      );
    } catch (e) {
      const err = e instanceof WebhookCallError ? e : new WebhookCallError(String(e), 'error');
      this.#o.log?.('Failed to make webhook authorizer request', err);
      if (this.#decisionOnError === 'NoOpinion' && err.kind !== 'canceled') this.#o.recorder?.failOpen(err.kind);
      return this.#failed(err);
    }
    if (shouldCache(a)) this.#cache.add(key, status, status.allowed ? this.#o.authorizedTTLMs : this.#o.unauthorizedTTLMs);
    return decide(status);
  }

  #failed(err: Error): AuthorizationResult {
    return { decision: this.#decisionOnError, reason: '', error: err };
  }
}

function decide(s: SubjectAccessReviewStatus): AuthorizationResult {
  const reason = s.reason ?? '';
  if (s.denied && s.allowed) return { decision: 'Deny', reason, error: new Error('webhook subject access review returned both allow and deny response') };
  if (s.denied) return { decision: 'Deny', reason };
  if (s.allowed) return { decision: 'Allow', reason };
  return reason ? { decision: 'NoOpinion', reason } : NO_OPINION;
}

/** Requester-controlled attributes this large may be an attempt to flood the cache: not cached. */
function shouldCache(a: Attributes): boolean {
  const n = a.namespace.length + a.verb.length + a.apiGroup.length + a.apiVersion.length + a.resource.length + a.subresource.length + a.name.length + a.path.length;
  return n < MAX_CONTROLLED_ATTR_CACHE_SIZE;
}
