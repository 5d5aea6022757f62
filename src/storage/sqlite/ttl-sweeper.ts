/**
 * TTL expiry. Deadlines live in `current.expires_at` (indexed), so a sweep reads only the objects that are due.
 * Each due object is deleted through the ordinary delete path (one log row, a DELETED event for watchers), guarded
 * by its revision so that an object rewritten in the meantime (which restarted its clock) is left alone. Sweeps
 * work in bounded batches; a full batch schedules the next one on a later turn instead of holding the loop.
 */
import type { StoredObject } from '../interface.ts';
import type { Statements } from './schema.ts';

const BATCH = 500;

export class TtlSweeper {
  private readonly timer: NodeJS.Timeout;
  private running: Promise<number> | undefined;
  private stopped = false;

  constructor(
    private readonly stmts: Statements,
    private readonly now: () => number,
    intervalMs: number,
    /** Deletes `key` if it is still at revision `rv`; rejects otherwise. */
    private readonly expire: (key: string, rv: number) => Promise<StoredObject>,
  ) {
    this.timer = setInterval(() => void this.sweep(), intervalMs);
    this.timer.unref();
  }

  /** Deletes everything due now, batch by batch; resolves with the number of objects deleted. */
  sweep(): Promise<number> {
    this.running ??= this.sweepAll().finally(() => (this.running = undefined));
    return this.running;
  }

  stop(): void {
    this.stopped = true;
    clearInterval(this.timer);
  }

  private async sweepAll(): Promise<number> {
    let deleted = 0;
    for (;;) {
      if (this.stopped) return deleted;
      const due = this.stmts.expired.all(this.now(), BATCH) as [string, number][];
      // A rejected expiry means the object changed or went away meanwhile, which is exactly what we want.
      const results = await Promise.allSettled(due.map(([key, rv]) => this.expire(key, rv)));
      deleted += results.filter((r) => r.status === 'fulfilled').length;
      if (due.length < BATCH) return deleted;
      await new Promise((r) => setImmediate(r));
    }
  }
}
