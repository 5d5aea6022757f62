import type { ChildProcess } from 'node:child_process';

/** Sends SIGTERM to a child that is still running and resolves once it has exited (at once if it already has). */
export async function stopProcess(p: ChildProcess | undefined): Promise<void> {
  if (!p || p.exitCode !== null || p.signalCode !== null) return;
  const exited = new Promise((r) => p.once('exit', r));
  p.kill('SIGTERM');
  await exited;
}
