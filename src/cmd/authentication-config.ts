/**
 * `--authentication-config`: the AuthenticationConfiguration file's JWT authenticators, reloaded when the file changes
 * (upstream `pkg/kubeapiserver/options/authentication.go`): a watch on the file's directory (editors and ConfigMap
 * volumes replace files rather than write them) and a poll every minute; the same bytes are no change, bytes that do
 * not decode or validate are refused and not tried again until the file changes, a valid file is built, its issuers
 * given up to a minute to become ready, and swapped in for the next request. Old authenticators are closed a minute
 * later (requests in flight finish with them). Every attempt is counted in the catalogue's
 * `apiserver_authentication_config_controller_*` metrics.
 */
import { createHash } from 'node:crypto';
import { readFileSync, watch, type FSWatcher } from 'node:fs';
import { basename, dirname } from 'node:path';
import type { AuthenticationResult, Authenticator, AuthenticatorRequest } from '../auth/authenticator/interface.ts';
import { NO_CREDENTIALS } from '../auth/authenticator/interface.ts';
import { type JWTAuthenticators, newJWTAuthenticators } from '../auth/authenticator/jwt/jwt-authenticators.ts';
import { loadAuthenticationConfiguration, type LoadedAuthenticationConfiguration } from '../config/authentication.ts';
import { decideReload } from '../config/authentication-reload.ts';
import type { CompiledAuthenticationConfiguration } from '../config/authentication-validation.ts';
import type { Registry } from '../metrics/registry.ts';
import { JWTMetrics } from '../server/authentication-metrics.ts';
import { featureGates } from '../features.ts';
import { log } from '../util/log.ts';
import { CoalescedPass } from '../util/coalesce.ts';

/** upstream's hashes in metric labels: `sha256:<hex>`. */
export const sha256Label = (s: string) => `sha256:${createHash('sha256').update(s).digest('hex')}`;


export interface AuthenticationConfigOptions {
  registry: Registry;
  /** This server's identity; its hash labels the reload metrics. */
  apiserverID: string;
  /** How often the file is read again even without a watch event; upstream's minute. */
  pollIntervalMs?: number;
  /** How long new issuers may take to become ready before a reload counts as failed. */
  readyTimeoutMs?: number;
  /** How long replaced authenticators live on for requests already using them. */
  closeDelayMs?: number;
}

/** The authenticator in force, swapped atomically on reload; requests read `#current` once. */
export class ReloadingJWTAuthenticator implements Authenticator {
  #current: JWTAuthenticators;
  readonly #path: string;
  readonly #o: Required<Omit<AuthenticationConfigOptions, 'registry' | 'apiserverID'>>;
  readonly #initialAnonymous: LoadedAuthenticationConfiguration['config']['anonymous'];
  /** The bytes last acted on: the configuration in force, or the last refused content. */
  #tracked: string;
  #watcher: FSWatcher | undefined;
  #timer: NodeJS.Timeout | undefined;
  readonly #pass = new CoalescedPass(() => this.#checkOnce());
  readonly #record: (status: 'success' | 'failure') => void;
  readonly #configInfo: (data: string) => void;
  readonly #jwtMetrics: JWTMetrics;

  /** Loads the file (throws AuthenticationConfigError for the start-up message) and starts watching it. */
  constructor(path: string, o: AuthenticationConfigOptions) {
    const loaded = loadAuthenticationConfiguration(path);
    this.#path = path;
    this.#o = { pollIntervalMs: o.pollIntervalMs ?? 60_000, readyTimeoutMs: o.readyTimeoutMs ?? 60_000, closeDelayMs: o.closeDelayMs ?? 60_000 };
    this.#initialAnonymous = loaded.config.anonymous;
    this.#tracked = loaded.data;

    const id = sha256Label(o.apiserverID);
    const reloads = o.registry.counter('apiserver_authentication_config_controller_automatic_reloads_total', 'Total number of automatic reloads of authentication configuration split by status and apiserver identity.');
    const last = o.registry.gauge('apiserver_authentication_config_controller_automatic_reload_last_timestamp_seconds', 'Timestamp of the last automatic reload of authentication configuration split by status and apiserver identity.');
    const info = o.registry.gauge('apiserver_authentication_config_controller_last_config_info', 'Information about the last applied authentication configuration with hash as label, split by apiserver identity.');
    this.#record = (status) => {
      reloads.with(id, status).inc();
      last.with(id, status).set(Date.now() / 1000);
    };
    this.#configInfo = (data) => {
      // One series: the configuration in force (upstream resets the vector, then sets it).
      info.reset();
      info.with(id, sha256Label(data)).set(1);
    };
    this.#jwtMetrics = new JWTMetrics(o.registry, o.apiserverID, { jwksMetrics: featureGates.enabled('StructuredAuthenticationConfigurationJWKSMetrics') });
    this.#configInfo(loaded.data);
    this.#current = this.#build(loaded);
    this.#watch();
  }

  authenticate(req: AuthenticatorRequest): AuthenticationResult | Promise<AuthenticationResult> {
    return this.#current.authenticate(req);
  }

  /** A bearer token for the token union (the server's token cache is in front of the union). */
  authenticateToken(token: string): AuthenticationResult | Promise<AuthenticationResult> {
    return this.#current.authenticateToken(token);
  }

  /** The file's `anonymous` section as loaded at start (it cannot change on reload). */
  get anonymous(): LoadedAuthenticationConfiguration['config']['anonymous'] {
    return this.#initialAnonymous;
  }

  /** For /readyz-style reporting: which issuer is not ready yet. */
  healthCheck(): Error | undefined {
    return this.#current.healthCheck();
  }

  /** Settles when the issuers in force have completed discovery (tests). */
  ready(): Promise<void> {
    return this.#current.ready();
  }

  stop(): void {
    this.#watcher?.close();
    if (this.#timer) clearInterval(this.#timer);
    this.#current.close();
  }

  /** Reads the file and acts on it (the watch and the poll call this; exported for tests through `check`). */
  async check(): Promise<void> {
    return this.#pass.run();
  }

  async #checkOnce(): Promise<void> {
    let data: string;
    try {
      data = readFileSync(this.#path, 'utf8');
    } catch (e) {
      // Not remembered: a file being replaced is read again on the next event or poll.
      log.error('failed to read authentication config file', { path: this.#path, err: (e as Error).message });
      this.#record('failure');
      return;
    }
    const d = decideReload(data, this.#tracked, this.#initialAnonymous);
    if (d.kind === 'unchanged') return;
    if (d.kind === 'invalid') {
      this.#tracked = data;
      log.error(d.message, { path: this.#path });
      this.#record('failure');
      return;
    }
    let next: JWTAuthenticators;
    try {
      next = this.#build(d.compiled);
    } catch (e) {
      log.error('failed to build authenticators from the new authentication config', { err: (e as Error).message });
      this.#record('failure');
      return;
    }
    const ready = await Promise.race([next.ready().then(() => true), new Promise<boolean>((r) => setTimeout(r, this.#o.readyTimeoutMs, false).unref())]);
    if (!ready) {
      log.error('the new authentication config\'s issuers did not become ready; keeping the configuration in force', { err: next.healthCheck()?.message ?? '' });
      next.close();
      this.#record('failure');
      return;
    }
    const old = this.#current;
    this.#current = next;
    this.#tracked = data;
    setTimeout(() => old.close(), this.#o.closeDelayMs).unref();
    const kept = new Set(next.issuers.map((i) => i.issuerURL));
    for (const i of old.issuers) if (!kept.has(i.issuerURL)) this.#jwtMetrics.forgetIssuer(i.issuerURL);
    this.#configInfo(data);
    this.#record('success');
    log.info('Loaded a new authentication configuration', { path: this.#path });
  }

  #build(compiled: CompiledAuthenticationConfiguration): JWTAuthenticators {
    // No cache of their own: the server's token cache stands in front of the whole token union, as upstream's.
    return newJWTAuthenticators(compiled, { ...this.#jwtMetrics.hooks, successCacheTTLMs: 0 });
  }

  #watch(): void {
    const file = basename(this.#path);
    try {
      this.#watcher = watch(dirname(this.#path), (_event, name) => {
        if (name === null || name === file || name.startsWith('..')) void this.check();
      });
      this.#watcher.on('error', () => {});
      this.#watcher.unref();
    } catch {
      // No watch on this file system: the poll alone notices changes.
    }
    this.#timer = setInterval(() => void this.check(), this.#o.pollIntervalMs);
    this.#timer.unref();
  }
}

/** No JWT authenticators: what the chain holds without --authentication-config. */
export const NO_JWT: Authenticator = { authenticate: () => NO_CREDENTIALS };
