/**
 * The storage conformance suite: the behaviour every backend (sqlite now, etcd later) must show, as node:test
 * cases. A backend's test file calls it with a factory:
 *
 *   runStorageConformance('sqlite', async () => { const s = openSqliteStorage({ path, codec: jsonCodec });
 *     return { storage: s, cleanup: async () => { await s.close(); rmSync(dir, …) } }; });
 *
 * Contract for the factory: a fresh (or at least freshly prefixed) store per call, built with `jsonCodec` from
 * ./testing/json-codec.ts and any value transformer. Backends run the suite with the identity transformer and with
 * ./testing/scrambling-transformer.ts (plain and answering asynchronously first), which changes the stored bytes
 * and binds them to their key: a path that skips the transformer then fails here. The tests never assume where
 * revisions start or that they are contiguous (an etcd shared between tests moves on its own), only that they are
 * global and strictly increasing.
 *
 * Compaction semantics checked here: after `compact(R)`, lists at revisions <= R fail with Expired and watches from
 * revisions < R fail with Expired, while a watch from R itself misses nothing. (etcd keeps revision R itself
 * readable after compacting at R, so an etcd backend applies these bounds from its own compacted revision.)
 */
import { describe } from 'node:test';
import type { ConformanceBackend, ConformanceOptions } from './testing/conformance-helpers.ts';
import { listTests } from './testing/conformance-list.ts';
import { ttlTests } from './testing/conformance-ttl.ts';
import { watchTests } from './testing/conformance-watch.ts';
import { writeTests } from './testing/conformance-write.ts';

export type { ConformanceBackend, ConformanceOptions } from './testing/conformance-helpers.ts';

/** Registers the conformance suite for one backend as a node:test `describe` block. */
export function runStorageConformance(name: string, makeStorage: () => Promise<ConformanceBackend>, opts: ConformanceOptions = {}): void {
  const ctx = { make: makeStorage, opts };
  describe(`storage conformance: ${name}`, () => {
    describe('get, create, update, delete', () => writeTests(ctx));
    describe('list and compaction', () => listTests(ctx));
    describe('watch', () => watchTests(ctx));
    describe('TTL', () => ttlTests(ctx));
  });
}
