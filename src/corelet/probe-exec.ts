/**
 * The exec probe (upstream `pkg/probe/exec`): the command runs inside the container — here, in the container's
 * cgroup with its environment and working directory — and exit status 0 is success. Its combined output (at most
 * 10 KiB) is the probe's output; a command still running at the timeout is killed and the probe fails.
 */
import { spawn } from 'node:child_process';
import { MAX_PROBE_OUTPUT, type ProbeOutcome } from './probe-result.ts';
import { signal } from './cgroups.ts';

export interface ExecTarget {
  command: string[];
  env: Record<string, string>;
  cwd: string;
  /** Spawns the command as the container's processes are spawned: [file, args]. */
  argv: [string, string[]];
  timeoutMs: number;
}

export function execProbe(t: ExecTarget): Promise<ProbeOutcome> {
  return new Promise((resolve) => {
    let out = Buffer.alloc(0);
    let timedOut = false;
    const child = spawn(t.argv[0], t.argv[1], { cwd: t.cwd, env: t.env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    const keep = (d: Buffer) => {
      if (out.length < MAX_PROBE_OUTPUT) out = Buffer.concat([out, d]).subarray(0, MAX_PROBE_OUTPUT);
    };
    child.stdout!.on('data', keep);
    child.stderr!.on('data', keep);
    // The command and whatever it started: its own process group.
    const timer = setTimeout(() => {
      timedOut = true;
      if (child.pid) signal(-child.pid, 'SIGKILL');
    }, t.timeoutMs);
    child.once('error', (err) => {
      clearTimeout(timer);
      resolve({ result: 'unknown', output: '', error: err });
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      if (timedOut) return resolve({ result: 'failure', output: `command ${JSON.stringify(t.command.join(' '))} timed out` });
      resolve({ result: code === 0 ? 'success' : 'failure', output: out.toString('utf8') });
    });
  });
}
