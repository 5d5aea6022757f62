/**
 * Compaction of an etcd cluster every --etcd-compaction-interval (5 minutes by default), as upstream's compactor
 * (pkg/storage/etcd3/compact.go): each tick compacts to the revision seen at the previous tick, so one interval of
 * history stays for watches to resume from. Several API server replicas on one etcd compact once per interval between
 * them: the key `compact_rev_key` (outside --etcd-prefix, as upstream) holds the last compacted revision, and its
 * etcd version counts the compactions. A replica compacts only if its transaction finds the version it last saw; one
 * that loses learns the version and the revision compacted by the winner, and tries again next interval. If the
 * replica that compacted dies, another takes over within two intervals.
 */
import { log } from '../../util/log.ts';
import { ErrCompacted, isGrpcError, type EtcdClient } from './client.ts';
import { CompareResult, CompareTarget, num } from './proto.ts';

export const COMPACT_REV_KEY = 'compact_rev_key';

export interface CompactState {
  /** Version of compact_rev_key this replica last saw (the "compact time"). */
  version: number;
  /** Revision to compact to next: the current revision at the previous tick. */
  rev: number;
}

/**
 * One compaction step (upstream's `compact`): returns the new state and the revision compacted by this or another
 * replica (0 when none is known).
 */
export async function compactStep(client: EtcdClient, state: CompactState): Promise<{ state: CompactState; compacted: number }> {
  const key = Buffer.from(COMPACT_REV_KEY);
  const res = await client.call('txn', {
    compare: [{ result: CompareResult.EQUAL, target: CompareTarget.VERSION, key, version: state.version }],
    success: [{ request_put: { key, value: Buffer.from(String(state.rev)) } }],
    failure: [{ request_range: { key } }],
  });
  const currentRev = num(res.header.revision);
  if (!res.succeeded) {
    // Another replica compacted since we last looked: take its version; its value is what it compacted to.
    const kv = res.responses[0]?.response_range?.kvs[0];
    const version = kv ? num(kv.version) : 0;
    const compacted = kv ? Number.parseInt(Buffer.from(kv.value).toString(), 10) : 0;
    return { state: { version, rev: currentRev }, compacted: Number.isFinite(compacted) ? compacted : 0 };
  }
  const next = { version: state.version + 1, rev: currentRev };
  // The first tick only records where we are: nothing is compacted at start-up.
  if (state.rev === 0) return { state: next, compacted: 0 };
  try {
    await client.call('compact', { revision: state.rev });
  } catch (err) {
    // Compacted past this already (an operator, etcd's own auto-compaction): the history is gone either way.
    if (!(isGrpcError(err) && err.details === ErrCompacted)) throw err;
  }
  log.V(4).info('etcd: compacted', { revision: state.rev, endpoints: client.endpoints.map((e) => e.url) });
  return { state: next, compacted: state.rev };
}

/** Runs compactStep every `intervalMs` (0: never); `onCompacted` hears of each compacted revision. */
export function startEtcdCompactor(client: EtcdClient, intervalMs: number, onCompacted: (rev: number) => void): { stop(): void } {
  if (intervalMs <= 0) return { stop() {} };
  let state: CompactState = { version: 0, rev: 0 };
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    compactStep(client, state)
      .then(
        (r) => {
          state = r.state;
          if (r.compacted > 0) onCompacted(r.compacted);
        },
        (err: unknown) => log.error('etcd: compaction failed', { endpoints: client.endpoints.map((e) => e.url), err: err instanceof Error ? err.message : String(err) }),
      )
      .finally(() => (running = false));
  }, intervalMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
