/**
 * /healthz, /livez and /readyz as apiserver's pkg/server/healthz: the root probe runs every check of its endpoint,
 * `/<endpoint>/<check>` runs one. Failure reasons never reach the (public) root probe; they go to the log.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Http2ServerRequest, Http2ServerResponse } from 'node:http2';
import type { Writable } from 'node:stream';
import { goQuote } from '../apimachinery/field.ts';

export type HealthEndpoint = 'healthz' | 'livez' | 'readyz';
export type HealthCheckFn = () => Promise<void> | void;

interface Check {
  name: string;
  fn: HealthCheckFn;
}

export interface HealthChecksOptions {
  /** Receives upstream's log text for failed root probes (`[-]<name> failed: <err>` lines). */
  log?: (message: string) => void;
  /** Called for each check a root probe ran (not for excluded checks or sub-paths); feeds the health-check metrics. */
  observe?: (name: string, endpoint: HealthEndpoint, success: boolean) => void;
}

const EXCLUDED = Symbol('excluded');
const TEXT_HEADERS = { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff' };

/**
 * The health checks of one server. `ping` is registered first on all three endpoints and `shutdown` is always the
 * last readyz check, as in kube-apiserver's output.
 */
export class HealthChecks {
  private readonly checks: Record<HealthEndpoint, Check[]> = { healthz: [], livez: [], readyz: [] };
  private shuttingDown = false;
  private readonly shutdownCheck: Check = {
    name: 'shutdown',
    fn: () => {
      if (this.shuttingDown) throw new Error('process is shutting down');
    },
  };

  constructor(private readonly opts: HealthChecksOptions = {}) {
    this.add('ping', () => {}, ['healthz', 'livez', 'readyz']);
  }

  /** Registers a check on the given endpoints, after the ones already there. Names must be unique per endpoint. */
  add(name: string, fn: HealthCheckFn, endpoints: HealthEndpoint[]): void {
    for (const e of endpoints) {
      if (this.checks[e].some((c) => c.name === name) || (e === 'readyz' && name === 'shutdown')) {
        throw new Error(`health check "${name}" is already registered on /${e}`);
      }
      this.checks[e].push({ name, fn });
    }
  }

  /** From now on /readyz fails with `shutdown` (`process is shutting down`). */
  setShuttingDown(): void {
    this.shuttingDown = true;
  }

  /** Every path these checks serve: `/healthz`, `/healthz/ping`, ... (what /statusz lists). */
  paths(): string[] {
    return (['healthz', 'livez', 'readyz'] as const).flatMap((e) => [`/${e}`, ...this.names(e).map((n) => `/${e}/${n}`)]);
  }

  /** The checks of an endpoint, in the order they run. */
  names(endpoint: HealthEndpoint): string[] {
    return this.list(endpoint).map((c) => c.name);
  }

  /**
   * Serves the request if `pathname` is a health path (`/readyz`, `/readyz/sqlite`, ...); returns false otherwise
   * so the caller can route it on. The response is written asynchronously.
   */
  handle(
    req: IncomingMessage | Http2ServerRequest,
    res: ServerResponse | Http2ServerResponse,
    pathname: string,
    query: URLSearchParams,
  ): boolean {
    const m = /^\/(healthz|livez|readyz)(?:\/(.+))?$/.exec(pathname);
    if (!m) return false;
    const endpoint = m[1] as HealthEndpoint;
    const checks = this.list(endpoint);
    const sub = m[2];
    const out = res as PlainResponse;
    const head = req.method === 'HEAD';
    if (sub === undefined) {
      void this.root(endpoint, checks, query).then(({ status, body }) => send(out, status, TEXT_HEADERS, body, head));
      return true;
    }
    const check = checks.find((c) => c.name === sub);
    if (!check) return false;
    void run(check).then((err) => {
      // Upstream writes the success body without headers (Go sniffs text/plain) and the failure with http.Error.
      if (err === null) send(out, 200, { 'Content-Type': 'text/plain; charset=utf-8' }, 'ok', head);
      else send(out, 500, TEXT_HEADERS, `internal server error: ${err}\n`, head);
    });
    return true;
  }

  private list(endpoint: HealthEndpoint): Check[] {
    return endpoint === 'readyz' ? [...this.checks.readyz, this.shutdownCheck] : this.checks[endpoint];
  }

  private async root(endpoint: HealthEndpoint, checks: Check[], query: URLSearchParams): Promise<{ status: number; body: string }> {
    const excluded = new Set(query.getAll('exclude'));
    const unknownExcluded = new Set(excluded);
    const results = await Promise.all(
      checks.map((c) => {
        if (!excluded.has(c.name)) return run(c);
        unknownExcluded.delete(c.name);
        return Promise.resolve(EXCLUDED);
      }),
    );
    let out = '';
    let logText = '';
    const failed: string[] = [];
    checks.forEach((c, i) => {
      const r = results[i];
      if (r === EXCLUDED) {
        out += `[+]${c.name} excluded: ok\n`;
        return;
      }
      this.opts.observe?.(c.name, endpoint, r === null);
      if (r === null) {
        out += `[+]${c.name} ok\n`;
      } else {
        out += `[-]${c.name} failed: reason withheld\n`;
        logText += `[-]${c.name} failed: ${r}\n`;
        failed.push(c.name);
      }
    });
    if (unknownExcluded.size > 0) {
      const names = [...unknownExcluded].sort().map(goQuote).join(',');
      out += `warn: some health checks cannot be excluded: no matches for ${names}\n`;
    }
    if (failed.length > 0) {
      this.opts.log?.(`${failed.join(',')} check failed: ${endpoint}\n${logText}`);
      // http.Error appends a newline
      return { status: 500, body: `${out}${endpoint} check failed\n` };
    }
    if (!query.has('verbose')) return { status: 200, body: 'ok' };
    return { status: 200, body: `${out}${endpoint} check passed\n` };
  }
}

/** The one method set both response kinds share; their overloads keep TypeScript from calling through the union. */
interface PlainResponse {
  writeHead(status: number, headers: Record<string, string>): unknown;
  end(body?: string): unknown;
  readonly writableEnded: boolean;
  readonly destroyed?: boolean;
}

function send(res: PlainResponse, status: number, headers: Record<string, string>, body: string, head: boolean): void {
  if (res.writableEnded || res.destroyed) return;
  res.writeHead(status, { ...headers, 'Content-Length': String(Buffer.byteLength(body)) });
  res.end(head ? undefined : body);
}

/** Runs a check; null on success, else the error text. Synchronous throws count as failures too. */
async function run(c: Check): Promise<string | null> {
  try {
    await c.fn();
    return null;
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  }
}

/**
 * The `log` check. Upstream's fails (`logging blocked`) when klog could not flush for 2 minutes; our logs go to a
 * stream, so it fails once that stream has stayed backed up (`writableNeedDrain`) for 2 minutes.
 */
export function logBlockedCheck(stream: Writable = process.stderr, now: () => number = Date.now): HealthCheckFn {
  let blockedSince: number | null = null;
  return () => {
    if (!stream.writableNeedDrain) {
      blockedSince = null;
      return;
    }
    blockedSince ??= now();
    if (now() - blockedSince >= 2 * 60_000) throw new Error('logging blocked');
  };
}
