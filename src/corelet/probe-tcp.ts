/** The tcpSocket probe (upstream `pkg/probe/tcp`): success when a connection opens within the timeout. */
import { connect } from 'node:net';
import { dialError, joinHostPort, type ProbeOutcome } from './probe-result.ts';

export function tcpProbe(host: string, port: number, timeoutMs: number): Promise<ProbeOutcome> {
  const addr = joinHostPort(host, port);
  return new Promise((resolve) => {
    const sock = connect({ host, port });
    const timer = setTimeout(() => {
      sock.destroy();
      resolve({ result: 'failure', output: `dial tcp ${addr}: i/o timeout` });
    }, timeoutMs);
    sock.once('connect', () => {
      clearTimeout(timer);
      sock.destroy();
      resolve({ result: 'success', output: '' });
    });
    sock.once('error', (err: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      resolve({ result: 'failure', output: dialError(addr, err) });
    });
  });
}
