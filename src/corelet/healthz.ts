/**
 * The corelet's `/healthz` and `/metrics/slis` (kubelet's healthz checks `ping`, `log` and `syncloop`, minus `log`,
 * which checks klog's flush daemon we do not have): `syncloop` fails once the manifest sync loop has not started a
 * pass for twice its period, at least 5 minutes (kubelet's syncLoopHealthCheck). Every run of the root probe feeds
 * the health-check SLIs (`cluster_healthcheck`, `cluster_healthchecks_total`, gate ComponentSLIs, locked on).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type CounterSeries, GaugeSeries, type MetricVec } from '../metrics/metric.ts';
import { processStartSeconds } from '../metrics/process.ts';
import { Registry } from '../metrics/registry.ts';
import { versionInfo } from '../version.ts';
import { sendText } from './routes.ts';

export interface SyncLoopSource {
  /** When the sync loop last started a pass (ms since the epoch), or undefined before the first. */
  lastSyncStart(): number | undefined;
  /** The loop's period in ms. */
  periodMs: number;
}

/** kubelet's syncLoopHealthCheck bound: twice the period, at least 5 minutes. */
export function syncLoopTimeout(periodMs: number): number {
  return Math.max(2 * periodMs, 5 * 60_000);
}

export class CoreletHealth {
  readonly slis: Registry;
  readonly #checks: { name: string; fn: () => void }[];
  readonly #last: MetricVec<GaugeSeries>;
  readonly #total: MetricVec<CounterSeries>;

  constructor(sync: SyncLoopSource, now: () => number = Date.now) {
    this.slis = new Registry({ version: versionInfo.gitVersion, path: '/metrics/slis' });
    this.#last = this.slis.gauge('cluster_healthcheck', 'This metric records the result of a single healthcheck.');
    this.#total = this.slis.counter('cluster_healthchecks_total', 'This metric records the results of all healthcheck.');
    this.slis.raw('process_start_time_seconds', '[ALPHA] Start time of the process since unix epoch in seconds.', 'gauge', [], () => new GaugeSeries()).with().set(processStartSeconds());
    this.#checks = [
      { name: 'ping', fn: () => {} },
      {
        name: 'syncloop',
        fn: () => {
          const last = sync.lastSyncStart();
          if (last !== undefined && now() > last + syncLoopTimeout(sync.periodMs)) throw new Error('sync Loop took longer than expected');
        },
      },
    ];
  }

  /** Runs every check: upstream's `[+]name ok` / `[-]name failed: reason withheld` lines and whether all passed. */
  run(): { ok: boolean; lines: string[] } {
    let ok = true;
    const lines = this.#checks.map((c) => {
      let passed = true;
      try {
        c.fn();
      } catch {
        passed = false;
      }
      ok &&= passed;
      this.#last.with(c.name, 'healthz').set(passed ? 1 : 0);
      this.#total.with(c.name, passed ? 'success' : 'error', 'healthz').inc();
      return passed ? `[+]${c.name} ok` : `[-]${c.name} failed: reason withheld`;
    });
    return { ok, lines };
  }

  /** `/healthz`: `ok`, or 500 with the checks' lines (all of them with `?verbose`). */
  handler = (req: IncomingMessage, res: ServerResponse): void => {
    const { ok, lines } = this.run();
    const verbose = new URL(req.url ?? '/', 'http://x').searchParams.has('verbose');
    if (ok && !verbose) return sendText(res, 200, 'ok');
    const body = `${lines.join('\n')}\n${ok ? 'healthz check passed' : 'healthz check failed'}\n`;
    sendText(res, ok ? 200 : 500, body);
  };
}
