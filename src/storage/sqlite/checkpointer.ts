/**
 * WAL checkpoints on a worker thread with its own connection. A checkpoint copies the WAL back into the database
 * file and fsyncs it; on the main connection that would stall the event loop (and every request) for tens of
 * milliseconds at a time. SQLite lets another connection run PASSIVE checkpoints while the writer keeps appending,
 * so the main connection only keeps a large auto-checkpoint as a backstop in case the worker falls behind.
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

// Plain CommonJS evaluated in the worker: no loader or transpiler needed there.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.module);
const db = new Database(workerData.path);
db.pragma('busy_timeout = 1000');
const timer = setInterval(() => {
  try { db.pragma('wal_checkpoint(PASSIVE)'); } catch { /* busy or closing: the next tick retries */ }
}, workerData.intervalMs);
parentPort.on('message', () => { clearInterval(timer); db.close(); parentPort.close(); });
`;

export class Checkpointer {
  private readonly worker: Worker;

  constructor(path: string, intervalMs: number) {
    const module = createRequire(import.meta.url).resolve('better-sqlite3');
    this.worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { path, module, intervalMs }, execArgv: [] });
    this.worker.unref();
  }

  /** Stops the worker and closes its connection (before the main connection closes, so that one can clean up). */
  async stop(): Promise<void> {
    const exited = new Promise<void>((resolve) => this.worker.once('exit', () => resolve()));
    this.worker.ref(); // keep the process alive until the worker has closed its connection
    this.worker.postMessage('stop');
    await exited;
  }
}
