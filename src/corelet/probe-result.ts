/**
 * What one probe run yields (upstream `pkg/probe` Result): success, a success with a warning (an HTTP probe that
 * stopped at a redirect), failure, or unknown with the error that kept the probe from running at all.
 */
export type ProbeResult = 'success' | 'warning' | 'failure' | 'unknown';

export interface ProbeOutcome {
  result: ProbeResult;
  /** The command's output, the response body, or the reason it failed: what the Unhealthy event says. */
  output: string;
  error?: Error;
}

/** Upstream keeps at most 10 KiB of a probe's output or response body. */
export const MAX_PROBE_OUTPUT = 10 * 1024;

/** Go's net.JoinHostPort: IPv6 addresses in brackets. */
export function joinHostPort(host: string, port: number): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

/** The text Go's net package gives a dial error (`dial tcp 127.0.0.1:1: connect: connection refused`). */
export function dialError(addr: string, err: NodeJS.ErrnoException): string {
  const why: Record<string, string> = {
    ECONNREFUSED: 'connect: connection refused',
    EHOSTUNREACH: 'connect: no route to host',
    ENETUNREACH: 'connect: network is unreachable',
    ECONNRESET: 'read: connection reset by peer',
  };
  if (err.code === 'ENOTFOUND' || err.code === 'EAI_AGAIN') return `dial tcp: lookup ${addr.replace(/:\d+$/, '')}: no such host`;
  return `dial tcp ${addr}: ${(err.code && why[err.code]) ?? err.message}`;
}
