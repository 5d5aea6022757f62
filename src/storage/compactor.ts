/**
 * Periodic compaction (upstream compacts etcd every 5 minutes). We keep history for a retention window — by
 * default the event TTL — so a watch can resume from any resourceVersion within it without 410: every interval the
 * current revision is sampled, and history older than the newest sample taken at least `retentionMs` ago is dropped.
 */
import type { Storage } from './interface.ts';
import { log } from '../util/log.ts';

export function startCompactor(storage: Storage, opts: { retentionMs: number; intervalMs?: number; now?: () => number }): { stop(): void } {
  const interval = opts.intervalMs ?? 60_000;
  const now = opts.now ?? Date.now;
  const samples: { at: number; rv: number }[] = [];
  let running = false;
  const tick = async () => {
    if (running) return;
    running = true;
    try {
      samples.push({ at: now(), rv: await storage.currentRevision() });
      let target = 0;
      while (samples.length && now() - samples[0]!.at >= opts.retentionMs) target = samples.shift()!.rv;
      if (target > storage.compactedRevision()) {
        await storage.compact(target);
        log.V(2).info('Compacted storage history', { revision: target });
      }
    } catch (e) {
      log.error('Compaction failed', { err: (e as Error).message });
    } finally {
      running = false;
    }
  };
  const timer = setInterval(() => void tick(), interval);
  timer.unref();
  void tick();
  return { stop: () => clearInterval(timer) };
}
