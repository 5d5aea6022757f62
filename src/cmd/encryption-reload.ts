/**
 * `--encryption-provider-config-automatic-reload` (upstream `encryptionconfig/controller`): the file is read again
 * when it changes — a watch on its directory (editors and ConfigMap volumes replace files) and upstream's poll
 * every minute — and compared by content hash. A file that loads is built into new transformers and installed for
 * every backend at once: writes from then on use its first providers, reads try all of its providers. A file that
 * does not load (bad YAML, a failed validation, a KMS plugin that does not come up) leaves the configuration in
 * force, is logged with its reason, counted as a failure, and tried again as upstream's rate-limited work queue
 * retries it: after 5 ms, doubling up to 1000 s, and at every poll (a KMS plugin that was down may be up by then).
 * `apiserver_encryption_config_controller_*` record each attempt and the hash in force.
 */
import { createHash } from 'node:crypto';
import { readFileSync, watch, type FSWatcher } from 'node:fs';
import { basename, dirname } from 'node:path';
import { configHash, parseEncryptionConfiguration, type EncryptionConfiguration } from '../config/encryption.ts';
import type { Registry } from '../metrics/registry.ts';
import { log } from '../util/log.ts';
import { CoalescedPass } from '../util/coalesce.ts';

export interface EncryptionReloadOptions {
  /** Absent: nothing recorded (the bench's no-metrics baseline). */
  registry?: Registry;
  /** This server's identity; only its hash appears in the metrics. */
  apiserverID: string;
  /** How often the file is read again without a watch event (upstream: one minute). */
  pollIntervalMs?: number;
}

/** `sha256:<hex>` of a string (upstream hashes the server's identity the same way for its labels). */
const sha256 = (s: string) => `sha256:${createHash('sha256').update(s).digest('hex')}`;

/** Records the configuration in force; also used without automatic reload, for the start-up configuration. */
export class EncryptionConfigMetrics {
  readonly #record: (status: 'success' | 'failure') => void;
  readonly #info: (hash: string) => void;

  constructor(registry: Registry, apiserverID: string) {
    const id = sha256(apiserverID);
    const reloads = registry.counter('apiserver_encryption_config_controller_automatic_reloads_total', 'Total number of reload successes and failures of encryption configuration split by apiserver identity.');
    const last = registry.gauge('apiserver_encryption_config_controller_automatic_reload_last_timestamp_seconds', 'Timestamp of the last successful or failed automatic reload of encryption configuration split by apiserver identity.');
    const info = registry.gauge('apiserver_encryption_config_controller_last_config_info', 'Information about the last applied encryption configuration with hash as label, split by apiserver identity.');
    this.#record = (status) => {
      reloads.with(id, status).inc();
      last.with(id, status).set(Date.now() / 1000);
    };
    this.#info = (hash) => {
      // One series: the configuration in force.
      info.reset();
      info.with(id, hash).set(1);
    };
  }

  reload(status: 'success' | 'failure'): void {
    this.#record(status);
  }

  inForce(hash: string): void {
    this.#info(hash);
  }
}

/** client-go's default controller rate limiter, per item: 5 ms × 2^failures, at most 1000 s. */
const RETRY_BASE_MS = 5;
const RETRY_MAX_MS = 1_000_000;

/** The delay before retry number `failures` (0-based). Upstream never forgets the item, so the count only grows. */
export function retryDelayMs(failures: number): number {
  return Math.min(RETRY_BASE_MS * 2 ** Math.min(failures, 40), RETRY_MAX_MS);
}

export class EncryptionConfigReloader {
  readonly #path: string;
  readonly #apply: (config: EncryptionConfiguration) => Promise<void>;
  readonly #metrics: EncryptionConfigMetrics | undefined;
  /** The content hash of the configuration in force: other content, refused or not, is tried again. */
  #inForce: string;
  #watcher: FSWatcher | undefined;
  #timer: NodeJS.Timeout | undefined;
  #retry: NodeJS.Timeout | undefined;
  #failures = 0;
  #stopped = false;
  readonly #pass = new CoalescedPass(() => this.#checkOnce());

  /**
   * `hash`: the content hash of the configuration loaded at start. `apply` installs a new configuration or throws
   * (installing nothing).
   */
  constructor(path: string, hash: string, apply: (config: EncryptionConfiguration) => Promise<void>, metrics: EncryptionConfigMetrics | undefined, o: { pollIntervalMs?: number } = {}) {
    this.#path = path;
    this.#inForce = hash;
    this.#apply = apply;
    this.#metrics = metrics;
    const file = basename(path);
    try {
      this.#watcher = watch(dirname(path), (_event, name) => {
        if (name === null || name === file || name.startsWith('..')) void this.check();
      });
      this.#watcher.on('error', () => {});
      this.#watcher.unref();
    } catch {
      // No watch on this file system: the poll alone notices changes.
    }
    this.#timer = setInterval(() => void this.check(), o.pollIntervalMs ?? 60_000);
    this.#timer.unref();
  }

  stop(): void {
    this.#stopped = true;
    this.#watcher?.close();
    if (this.#timer) clearInterval(this.#timer);
    if (this.#retry) clearTimeout(this.#retry);
  }

  /** Reads the file and acts on it; concurrent calls coalesce into one more pass. */
  async check(): Promise<void> {
    return this.#pass.run();
  }

  async #checkOnce(): Promise<void> {
    let data: Buffer;
    try {
      data = readFileSync(this.#path);
    } catch (e) {
      // A file being replaced is read again on the retry, the next event or the next poll.
      log.error('failed to read encryption provider configuration file', { path: this.#path, err: (e as Error).message });
      this.#failed();
      return;
    }
    const hash = configHash(data);
    if (hash === this.#inForce) return;
    try {
      const { config } = parseEncryptionConfiguration(data, this.#path, true);
      await this.#apply(config);
    } catch (e) {
      log.error('failed to load the new encryption provider configuration; keeping the configuration in force', { path: this.#path, err: (e as Error).message });
      this.#failed();
      return;
    }
    this.#inForce = hash;
    this.#metrics?.reload('success');
    this.#metrics?.inForce(hash);
    log.info('Loaded a new encryption provider configuration', { path: this.#path, hash });
  }

  /** Counts a failed attempt and schedules the next one (one pending retry at a time, the earliest). */
  #failed(): void {
    this.#metrics?.reload('failure');
    const delay = retryDelayMs(this.#failures++);
    if (this.#stopped || this.#retry) return;
    this.#retry = setTimeout(() => {
      this.#retry = undefined;
      void this.check();
    }, delay);
    this.#retry.unref();
  }
}
