/**
 * The configured authorizer chain (kube-apiserver `pkg/kubeapiserver/authorizer`), from `--authorization-config` or
 * the legacy `--authorization-mode`/`--authorization-webhook-*` flags (which are turned into the same
 * configuration, as upstream's buildAuthorizationConfiguration does): AlwaysAllow, AlwaysDeny, RBAC and webhooks in
 * the configured order, each counted in `apiserver_authorization_decisions_total`. The system:masters shortcut is
 * not part of it: core-apiserver.ts puts it in front, where it also stands for escalation checks.
 *
 * With `--authorization-config` the file is reloaded when it changes, as upstream does: a watch on its directory and
 * a poll every minute; the same bytes are no change; bytes that do not decode, validate or build are a failure
 * (logged, counted, not tried again until the file changes) and the chain in force stays; a valid file is built and
 * swapped in for the next request. Replaced webhooks keep their connections for a minute for requests in flight.
 */
import { readFileSync, watch, type FSWatcher } from 'node:fs';
import { basename, dirname } from 'node:path';
import { alwaysAllow, alwaysDeny } from '../auth/authorizer/always.ts';
import type { Attributes, AuthorizationResult, Authorizer } from '../auth/authorizer/interface.ts';
import { UnionAuthorizer } from '../auth/authorizer/union.ts';
import { ALWAYS_ALLOW_RULES, ALWAYS_DENY_RULES, type RuleResolver, type RulesResult, UnionRuleResolver, unsupportedRuleResolver } from '../auth/authorizer/rules.ts';
import type { UserInfo } from '../auth/authenticator/user.ts';
import type { Backoff } from '../auth/authorizer/webhook/client.ts';
import { loadWebhookConnection } from '../auth/authorizer/webhook/kubeconfig.ts';
import { WebhookAuthorizer } from '../auth/authorizer/webhook/webhook.ts';
import { compileAuthorizationData, loadAuthorizationConfiguration } from '../config/authorization.ts';
import {
  type AuthorizationConfiguration,
  CONNECTION_KUBECONFIG_FILE,
  FAILURE_POLICY_NO_OPINION,
  TYPE_ALWAYS_ALLOW,
  TYPE_ALWAYS_DENY,
  TYPE_RBAC,
  TYPE_WEBHOOK,
} from '../config/authorization-types.ts';
import type { CompiledAuthorizationConfiguration } from '../config/authorization-validation.ts';
import { log } from '../util/log.ts';
import type { AuthorizationOptions } from './authorization-flags.ts';
import type { AuthorizationMetrics } from './authorization-metrics.ts';

export interface AuthorizationDeps {
  /** The RBAC authorizer over the server's RBAC objects (always running: the RBAC API is served either way). */
  rbac: Authorizer & RuleResolver;
  /** Absent in the benchmark's no-metrics baseline. */
  metrics?: AuthorizationMetrics;
  apiserverID: string;
  pollIntervalMs?: number;
  closeDelayMs?: number;
  /** Tests shorten the webhook retry backoff. */
  backoff?: Backoff;
}

/** Upstream names the authorizers of `--authorization-mode` after their mode in lower case, the webhook `default`. */
export function configurationFromFlags(o: AuthorizationOptions): AuthorizationConfiguration {
  return {
    authorizers: o.modes.map((mode) =>
      mode === TYPE_WEBHOOK
        ? {
            type: TYPE_WEBHOOK,
            name: 'default',
            webhook: {
              authorizedTTLMs: o.webhookCacheAuthorizedTTLMs,
              cacheAuthorizedRequests: o.webhookCacheAuthorizedTTLMs !== 0,
              unauthorizedTTLMs: o.webhookCacheUnauthorizedTTLMs,
              cacheUnauthorizedRequests: o.webhookCacheUnauthorizedTTLMs !== 0,
              // Required by the configuration, implied by the flags (upstream's backward-compatible values).
              timeoutMs: 30_000,
              failurePolicy: FAILURE_POLICY_NO_OPINION,
              subjectAccessReviewVersion: o.webhookVersion,
              matchConditionSubjectAccessReviewVersion: '',
              connectionInfo: { type: CONNECTION_KUBECONFIG_FILE, kubeConfigFile: o.webhookConfigFile },
              matchConditions: [],
            },
          }
        : { type: mode, name: mode.toLowerCase() },
    ),
  };
}

interface Chain {
  readonly authorizer: Authorizer;
  /** The same authorizers' rule resolvers, for SelfSubjectRulesReview. */
  readonly rules: RuleResolver;
  readonly webhooks: readonly WebhookAuthorizer[];
}

/** Counts Allow and Deny answers of one authorizer; answers synchronously when it does. */
function instrumented(inner: Authorizer, series: ReturnType<AuthorizationMetrics['decisions']> | undefined): Authorizer {
  if (!series) return inner;
  const count = (r: AuthorizationResult): AuthorizationResult => {
    if (r.decision === 'Allow') series.allowed.inc();
    else if (r.decision === 'Deny') series.denied.inc();
    return r;
  };
  return {
    authorize(a: Attributes) {
      const r = inner.authorize(a);
      return r instanceof Promise ? r.then(count) : count(r);
    },
  };
}

function buildChain(compiled: CompiledAuthorizationConfiguration, deps: AuthorizationDeps): Chain {
  const webhooks: WebhookAuthorizer[] = [];
  const resolvers: RuleResolver[] = [];
  try {
    const authorizers = compiled.config.authorizers.map((c, i): Authorizer => {
      let a: Authorizer;
      switch (c.type) {
        case TYPE_ALWAYS_ALLOW:
          a = alwaysAllow;
          resolvers.push(ALWAYS_ALLOW_RULES);
          break;
        case TYPE_ALWAYS_DENY:
          a = alwaysDeny;
          resolvers.push(ALWAYS_DENY_RULES);
          break;
        case TYPE_RBAC:
          a = deps.rbac;
          resolvers.push(deps.rbac);
          break;
        case TYPE_WEBHOOK: {
          const w = c.webhook!;
          const wa = new WebhookAuthorizer({
            name: c.name,
            connection: loadWebhookConnection(w.connectionInfo.kubeConfigFile!),
            subjectAccessReviewVersion: w.subjectAccessReviewVersion,
            timeoutMs: w.timeoutMs,
            authorizedTTLMs: w.cacheAuthorizedRequests ? w.authorizedTTLMs : 0,
            unauthorizedTTLMs: w.cacheUnauthorizedRequests ? w.unauthorizedTTLMs : 0,
            failurePolicy: w.failurePolicy === 'Deny' ? 'Deny' : 'NoOpinion',
            matchConditions: compiled.matchConditions[i] ?? [],
            ...(deps.metrics ? { recorder: deps.metrics.webhook(c.name) } : {}),
            ...(deps.backoff ? { backoff: deps.backoff } : {}),
            log: (message, err) => log.error(message, { authorizer: c.name, err: err.message }),
          });
          webhooks.push(wa);
          resolvers.push(unsupportedRuleResolver('webhook'));
          a = wa;
          break;
        }
        default:
          throw new Error(`unknown authorization mode ${c.type} specified`);
      }
      return instrumented(a, deps.metrics?.decisions(c.type, c.name));
    });
    return {
      authorizer: authorizers.length === 1 ? authorizers[0]! : new UnionAuthorizer(authorizers),
      rules: resolvers.length === 1 ? resolvers[0]! : new UnionRuleResolver(resolvers),
      webhooks,
    };
  } catch (e) {
    for (const w of webhooks) w.close();
    throw e;
  }
}

/** The chain in force; `authorize` reads it once per request, so a reload never splits a decision. */
export class ConfiguredAuthorizer implements Authorizer, RuleResolver {
  #current: Chain;
  readonly #deps: AuthorizationDeps;
  readonly #path: string;
  #tracked = '';
  #configJSON = '';
  #watcher: FSWatcher | undefined;
  #timer: NodeJS.Timeout | undefined;
  #reloads: ReturnType<AuthorizationMetrics['reloads']> | undefined;

  /** Builds the chain from the options (throws with the start-up message) and, for a file, starts watching it. */
  constructor(o: AuthorizationOptions, deps: AuthorizationDeps) {
    this.#deps = deps;
    this.#path = o.config;
    if (o.config === '') {
      const config = configurationFromFlags(o);
      this.#current = buildChain({ config, matchConditions: config.authorizers.map(() => []), errors: [] }, deps);
      return;
    }
    const loaded = loadAuthorizationConfiguration(o.config);
    this.#current = buildChain(loaded, deps);
    this.#tracked = loaded.data;
    this.#configJSON = JSON.stringify(loaded.config);
    this.#reloads = deps.metrics?.reloads(deps.apiserverID);
    this.#reloads?.configInfo(loaded.data);
    this.#watch();
  }

  authorize(a: Attributes): AuthorizationResult | Promise<AuthorizationResult> {
    return this.#current.authorizer.authorize(a);
  }

  rulesFor(user: UserInfo, namespace: string): RulesResult {
    return this.#current.rules.rulesFor(user, namespace);
  }

  stop(): void {
    this.#watcher?.close();
    if (this.#timer) clearInterval(this.#timer);
    for (const w of this.#current.webhooks) w.close();
  }

  /** Reads the file and acts on it (the watch and the poll call this; tests call it directly). */
  check(): void {
    let data: string;
    try {
      data = readFileSync(this.#path, 'utf8');
    } catch (e) {
      // Not remembered: a file being replaced is read again on the next event or poll.
      log.error('reloading authorization config', { path: this.#path, err: (e as Error).message });
      this.#reloads?.record('failure');
      return;
    }
    if (data === this.#tracked) return;
    log.info('found new authorization config data', { path: this.#path });
    this.#tracked = data;
    let next: Chain;
    let json: string;
    try {
      const compiled = compileAuthorizationData(data);
      json = JSON.stringify(compiled.config);
      // The same configuration written differently (comments, order of keys) is no change.
      if (json === this.#configJSON) return;
      next = buildChain(compiled, this.#deps);
    } catch (e) {
      log.error('reloading authorization config', { path: this.#path, err: (e as Error).message });
      this.#reloads?.record('failure');
      return;
    }
    const old = this.#current;
    this.#current = next;
    this.#configJSON = json;
    setTimeout(() => old.webhooks.forEach((w) => w.close()), this.#deps.closeDelayMs ?? 60_000).unref();
    this.#reloads?.configInfo(data);
    this.#reloads?.record('success');
    log.info('reloaded authz config', { path: this.#path });
  }

  #watch(): void {
    const file = basename(this.#path);
    try {
      // The directory, not the file: editors and ConfigMap volumes replace files (rename), which a file watch loses.
      this.#watcher = watch(dirname(this.#path), (_event, name) => {
        if (name === null || name === file || name.startsWith('..')) this.check();
      });
      this.#watcher.on('error', () => {});
      this.#watcher.unref();
    } catch {
      // No watch on this file system: the poll alone notices changes.
    }
    this.#timer = setInterval(() => this.check(), this.#deps.pollIntervalMs ?? 60_000);
    this.#timer.unref();
  }
}
