/** The in-memory backend passes the storage conformance suite every backend passes. */
import { runStorageConformance } from '../conformance.ts';
import { jsonCodec } from '../testing/json-codec.ts';
import { MemoryStorage } from './storage.ts';

runStorageConformance('memory', async () => {
  let clock = Date.now();
  const storage = new MemoryStorage({ codec: jsonCodec, now: () => clock, sweepIntervalMs: 20 });
  return { storage, cleanup: () => storage.close(), advanceClock: (ms) => void (clock += ms) };
});
