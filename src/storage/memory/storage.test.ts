/** The in-memory backend passes the storage conformance suite every backend passes, with and without a transformer. */
import { runStorageConformance } from '../conformance.ts';
import { jsonCodec } from '../testing/json-codec.ts';
import { AsyncFirstTransformer, ScramblingTransformer } from '../testing/scrambling-transformer.ts';
import type { Transformer } from '../value/transformer.ts';
import { MemoryStorage } from './storage.ts';

for (const [name, transformer] of [
  ['memory', undefined],
  ['memory, scrambling transformer', () => new ScramblingTransformer()],
  ['memory, transformer answering asynchronously first', () => new AsyncFirstTransformer(new ScramblingTransformer())],
] as [string, (() => Transformer) | undefined][]) {
  runStorageConformance(name, async () => {
    let clock = Date.now();
    const storage = new MemoryStorage({ codec: jsonCodec, now: () => clock, sweepIntervalMs: 20, ...(transformer ? { transformer: transformer() } : {}) });
    return { storage, cleanup: () => storage.close(), advanceClock: (ms) => void (clock += ms) };
  });
}
