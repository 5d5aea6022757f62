/**
 * End-to-end: a real Prometheus (Debian's 2.42, with its native-histograms feature, so it asks for delimited
 * protobuf) scrapes /metrics over HTTPS with the admin client certificate, once from a server with
 * NativeHistograms=true and once from one with the gate off, and its query API shows what it ingested.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseYAML } from 'yaml';
import { TestServer, freePort, sampleEvent } from './helpers/server.ts';

const PROMETHEUS = '/usr/bin/prometheus';
const DURATION = 'apiserver_request_duration_seconds';
const NATIVE_QUANTILE = `histogram_quantile(0.9, sum(rate(${DURATION}[1m])))`;

class Prometheus {
  readonly dir = mkdtempSync(join(tmpdir(), 'core-apiserver-prometheus-'));
  port = 0;
  proc: ChildProcess | undefined;
  log = '';
  readonly #killOnExit = () => this.proc?.kill('SIGKILL');

  /** Starts Prometheus scraping `server` every second with the server's CA and the admin client certificate. */
  async start(server: TestServer): Promise<void> {
    const kc = parseYAML(readFileSync(server.kubeconfig, 'utf8'));
    const file = (name: string, base64: string) => {
      const p = join(this.dir, name);
      writeFileSync(p, Buffer.from(base64, 'base64'), { mode: 0o600 });
      return p;
    };
    const ca = file('ca.crt', kc.clusters[0].cluster['certificate-authority-data']);
    const cert = file('admin.crt', kc.users[0].user['client-certificate-data']);
    const key = file('admin.key', kc.users[0].user['client-key-data']);
    const config = join(this.dir, 'prometheus.yml');
    writeFileSync(
      config,
      [
        'global:',
        '  scrape_interval: 1s',
        '  scrape_timeout: 1s',
        'scrape_configs:',
        '  - job_name: core-apiserver',
        '    scheme: https',
        '    tls_config:',
        `      ca_file: ${ca}`,
        `      cert_file: ${cert}`,
        `      key_file: ${key}`,
        '    static_configs:',
        `      - targets: ['127.0.0.1:${server.port}']`,
        '',
      ].join('\n'),
    );
    // A port taken between asking and binding (by another test process) is tried again on a new one.
    for (let attempt = 1; ; attempt++) {
      if (await this.#run(config)) return;
      if (/address already in use/.test(this.log) && attempt < 4) continue;
      throw new Error(`prometheus ${this.proc?.exitCode !== null ? `exited with ${this.proc?.exitCode}` : 'did not get ready'}:\n${this.log}`);
    }
  }

  /** Spawns Prometheus on a fresh port; true once it is ready, false if it exits or 20 s pass. */
  async #run(config: string): Promise<boolean> {
    this.port = await freePort();
    this.log = '';
    const proc = spawn(
      PROMETHEUS,
      [
        '--enable-feature=native-histograms',
        `--config.file=${config}`,
        `--storage.tsdb.path=${join(this.dir, 'data')}`,
        `--web.listen-address=127.0.0.1:${this.port}`,
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    this.proc = proc;
    process.off('exit', this.#killOnExit);
    process.once('exit', this.#killOnExit);
    proc.stdout!.on('data', (d: Buffer) => (this.log += d.toString()));
    proc.stderr!.on('data', (d: Buffer) => (this.log += d.toString()));
    const deadline = Date.now() + 20_000;
    while (Date.now() < deadline) {
      if (proc.exitCode !== null || proc.signalCode !== null) return false;
      // Its own line first: another process holding a port taken under us could answer /-/ready too.
      if (this.log.includes('Server is ready to receive web requests')) {
        try {
          if ((await fetch(`${this.url}/-/ready`)).status === 200) return true;
        } catch {
          // not answering yet
        }
      }
      await sleep(200);
    }
    return false;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async query(q: string): Promise<{ metric: Record<string, string>; value?: [number, string]; histogram?: unknown }[]> {
    const r = await fetch(`${this.url}/api/v1/query?query=${encodeURIComponent(q)}`);
    const body = (await r.json()) as { status: string; data: { result: never[] }; error?: string };
    assert.equal(body.status, 'success', `${q}: ${body.error}`);
    return body.data.result;
  }

  /** The scrape target's health and last error, for failure messages. */
  async target(): Promise<string> {
    try {
      const r = (await (await fetch(`${this.url}/api/v1/targets`)).json()) as { data: { activeTargets: { health: string; lastError: string }[] } };
      return JSON.stringify(r.data.activeTargets.map((t) => ({ health: t.health, lastError: t.lastError })));
    } catch (e) {
      return String(e);
    }
  }

  async stop(): Promise<void> {
    const p = this.proc;
    if (p && p.exitCode === null && p.signalCode === null) {
      const exited = new Promise<void>((r) => p.once('exit', () => r()));
      p.kill('SIGTERM');
      const timer = setTimeout(() => p.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    }
    process.off('exit', this.#killOnExit);
    rmSync(this.dir, { recursive: true, force: true });
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Keeps the REST handlers busy (creates and lists) until stopped, so that rate() sees observations. */
function traffic(server: TestServer, ns: string): () => Promise<void> {
  let running = true;
  const done = (async () => {
    for (let i = 0; running; i++) {
      const c = await server.request('POST', `/apis/events.cluster.io/v1/namespaces/${ns}/events`, sampleEvent(`e${i}`, ns));
      assert.equal(c.status, 201, c.body);
      assert.equal((await server.request('GET', `/apis/events.cluster.io/v1/namespaces/${ns}/events?limit=5`)).status, 200);
      await sleep(50);
    }
  })();
  return async () => {
    running = false;
    await done;
  };
}

/** Polls `check` until it returns a value (not undefined) or the deadline passes. */
async function eventually<T>(what: string, deadlineMs: number, check: () => Promise<T | undefined>, context: () => Promise<string>): Promise<T> {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    const v = await check();
    if (v !== undefined) return v;
    if (Date.now() > deadline) assert.fail(`${what} did not show up in time; target: ${await context()}`);
    await sleep(500);
  }
}

const present = existsSync(PROMETHEUS);
const native = new TestServer();
const classic = new TestServer();
const promNative = new Prometheus();
const promClassic = new Prometheus();

describe('Prometheus scrapes /metrics', { skip: present ? false : `${PROMETHEUS} is not installed (.ci/run installs Debian's prometheus)` }, () => {
  let stopTraffic: (() => Promise<void>)[] = [];

  before(async () => {
    await Promise.all([native.start(['--feature-gates=NativeHistograms=true']), classic.start()]);
    await Promise.all([promNative.start(native), promClassic.start(classic)]);
    stopTraffic = [traffic(native, 'prom'), traffic(classic, 'prom')];
  });

  after(async () => {
    await Promise.all(stopTraffic.map((stop) => stop()));
    await Promise.all([promNative.stop(), promClassic.stop(), native.cleanup(), classic.cleanup()]);
  });

  it('NativeHistograms=true: protobuf with native histograms that histogram_quantile reads', async () => {
    const q = await eventually(
      NATIVE_QUANTILE,
      40_000,
      async () => {
        const r = await promNative.query(NATIVE_QUANTILE);
        const v = r[0]?.value?.[1];
        return v !== undefined && Number.isFinite(Number(v)) ? Number(v) : undefined;
      },
      () => promNative.target(),
    );
    assert.ok(q > 0 && q < 60, `0.9 quantile ${q}`);
    // The native series itself: a histogram sample, not a float.
    const series = await promNative.query(`${DURATION}{verb="POST"}`);
    assert.ok(series.length > 0 && series.every((s) => s.histogram !== undefined), JSON.stringify(series).slice(0, 300));
    assert.ok((await promNative.query('apiserver_request_total{verb="POST",code="201"}')).length > 0, 'counters come through protobuf');
    // Prometheus 2.42 takes a histogram that carries native buckets as native only (scraping the classic buckets too
    // came with 2.45's scrape_classic_histograms), so its _bucket series stays empty: spec rule 7 of the negotiation.
    assert.deepEqual(await promNative.query(`${DURATION}_bucket`), []);
  });

  it('NativeHistograms=false: the same protobuf request gets classic buckets only', async () => {
    const buckets = await eventually(
      `${DURATION}_bucket`,
      40_000,
      async () => {
        const r = await promClassic.query(`${DURATION}_bucket{verb="POST"}`);
        return r.length ? r : undefined;
      },
      () => promClassic.target(),
    );
    assert.ok(buckets.some((b) => b.metric.le === '+Inf'), 'Prometheus adds the +Inf bucket from the count');
    assert.ok(buckets.some((b) => b.metric.le === '0.005'));
    // Scraped long enough for rate() to have two samples: a native histogram would give a number by now.
    await sleep(3_000);
    assert.deepEqual(await promClassic.query(NATIVE_QUANTILE), []);
    const classicQuantile = await promClassic.query(`histogram_quantile(0.9, sum by (le) (rate(${DURATION}_bucket[1m])))`);
    assert.equal(classicQuantile.length, 1, 'the classic quantile works');
  });
});
