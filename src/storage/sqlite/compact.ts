/**
 * Log compaction in bounded chunks of revisions, each its own short transaction, yielding to the event loop in
 * between so that group commits and reads keep flowing during a large compaction.
 */
import type Database from 'better-sqlite3';
import type { Statements } from './schema.ts';

const CHUNK = 10_000;

/** Removes the history in (from, to] that no read above `to` needs; stops early when `aborted()` turns true. */
export async function compactLog(db: Database.Database, stmts: Statements, from: number, to: number, aborted: () => boolean): Promise<void> {
  const chunk = db.transaction((lo: number, hi: number) => {
    stmts.compactSuperseded.run(lo, hi);
    stmts.compactTombstones.run(lo, hi);
  });
  for (let lo = from; lo < to; lo += CHUNK) {
    if (aborted()) return;
    chunk(lo, Math.min(lo + CHUNK, to));
    if (lo + CHUNK < to) await new Promise((r) => setImmediate(r));
  }
}
