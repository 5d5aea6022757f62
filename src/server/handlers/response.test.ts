/** List bodies as streamed to the socket equal the documents they stand for (JSON and Table, both Event views). */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import type { Event } from '../../apis/events/v1/types.ts';
import type { KubeObject } from '../../apis/meta/v1/types.ts';
import { goJSON } from '../../apimachinery/codec/encode.ts';
import { parseListOptions } from '../../apimachinery/list-options.ts';
import { registerCoreEvents } from '../../registry/core-events/storage.ts';
import type { ListResult } from '../../registry/rest/served.ts';
import { type EventResource, registerEvents } from '../../registry/events/storage.ts';
import { openSqliteStorage } from '../../storage/sqlite/index.ts';
import type { Storage } from '../../storage/interface.ts';
import type { Negotiated } from '../negotiation.ts';
import type { RequestContext } from './context.ts';
import { type ResourceScope, servedBytes } from '../../registry/rest/scope.ts';
import { CHUNK } from './chunks.ts';
import { WRITE_WINDOW, writeList } from './response.ts';
import { toTable } from '../../registry/rest/table.ts';

/** A response that takes bytes slowly (a callback per write on the next turn), as a socket under backpressure. */
class Sink extends Writable {
  chunks: Buffer[] = [];
  headers: Record<string, string> = {};
  writes = 0;
  constructor() {
    super({ highWaterMark: 16 * 1024 });
  }
  override _write(chunk: Buffer, _enc: string, cb: () => void): void {
    this.chunks.push(chunk);
    this.writes++;
    setImmediate(cb);
  }
  writeHead(_code: number, headers: Record<string, string>): this {
    this.headers = headers;
    return this;
  }
  setHeader(): void {}
  body(): string {
    return Buffer.concat(this.chunks).toString('utf8');
  }
}

/** A slow socket that records the most bytes the list left waiting in it, and how often the list waited for it. */
class SlowSink extends Sink {
  maxBuffered = 0;
  drainWaits = 0;
  override write(chunk: Buffer): boolean {
    const ok = super.write(chunk);
    this.maxBuffered = Math.max(this.maxBuffered, this.writableLength);
    return ok;
  }
  override on(event: string | symbol, fn: (...args: any[]) => void): this {
    if (event === 'drain') this.drainWaits++;
    return super.on(event, fn);
  }
}

const JSON_N: Negotiated = { mediaType: 'application/json', pretty: false };
const TABLE_N: Negotiated = { mediaType: 'application/json', as: 'Table', pretty: false };

function event(i: number, ns: string): Event {
  return {
    kind: 'Event',
    apiVersion: 'events.cluster.io/v1',
    metadata: { name: `e-${String(i).padStart(4, '0')}`, namespace: ns, labels: { app: i % 3 ? 'web' : 'db' }, annotations: { why: 'a<&>b' } },
    eventTime: '2020-01-01T00:00:00.000000Z',
    reportingController: 'kubelet',
    reportingInstance: i % 2 ? 'node-1' : 'nöde-2',
    action: 'Pull',
    reason: i % 5 ? 'Pulling' : 'BackOff',
    type: i % 5 ? 'Normal' : 'Warning',
    regarding: { kind: 'Pod', namespace: ns, name: `pod-${i}` },
    note: i % 7 ? `pulling image ${'x'.repeat(600)} ünïcødé` : '  "quoted" note\n',
    ...(i % 11 === 0 ? { series: { count: i + 2, lastObservedTime: '2021-01-01T00:00:00.000000Z' } } : {}),
  } as unknown as Event;
}

async function list(scope: ResourceScope, ns: string, query: string, n: Negotiated, sink = new Sink()): Promise<{ sink: Sink; l: ListResult }> {
  const opts = parseListOptions(new URLSearchParams(query), { watchPath: false, supportedFieldLabels: scope.supportedFieldLabels });
  const l = await scope.store.list(ns, opts);
  const ctx = { res: sink, query: new URLSearchParams(query), scope, warnings: [] } as unknown as RequestContext;
  await writeList(ctx, l, n);
  if (!sink.writableFinished) await new Promise((r) => sink.on('finish', r));
  return { sink, l };
}

describe('writeList', () => {
  let dir: string;
  let storage: Storage;
  let events: EventResource;
  let core: ResourceScope;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'response-'));
    storage = openSqliteStorage({ path: join(dir, 'db'), codec: (await import('../../registry/events/storage.ts')).eventCodec });
    events = await registerEvents(storage, { ttlSeconds: 0 });
    core = registerCoreEvents(events, { ttlSeconds: 0 }).scope;
    for (let i = 0; i < 300; i++) await events.store.create('big', event(i, 'big'), undefined, { dryRun: false });
    for (let i = 0; i < 2; i++) await events.store.create('small', event(i, 'small'), undefined, { dryRun: false });
    // ~1.3 KB each: about twice the write window.
    await Promise.all(Array.from({ length: 1700 }, (_, i) => events.store.create('huge', event(i, 'huge'), undefined, { dryRun: false })));
  });
  after(async () => {
    events.cacher.stop();
    await storage.close();
    rmSync(dir, { recursive: true, force: true });
  });

  for (const view of ['events', 'core'] as const) {
    it(`streams a whole ${view} JSON list in chunks, item bytes as stored (or converted), no Content-Length`, async () => {
      const scope = view === 'core' ? core : events.scope;
      const { sink, l } = await list(scope, 'big', '', JSON_N);
      const items = l.items.map((s) => servedBytes(scope, s.value).toString('utf8'));
      assert.equal(items.length, 300);
      assert.equal(sink.body(), `{"kind":"${scope.listKind}","apiVersion":"${scope.groupVersion}","metadata":{"resourceVersion":"${l.resourceVersion}"},"items":[${items.join(',')}]}\n`);
      assert.equal(sink.headers['content-length'], undefined);
      assert.ok(sink.writes > 3, `${sink.writes} writes`);
    });

    it(`streams a whole ${view} Table list equal to the table built from decoded objects, for every includeObject`, async () => {
      const scope = view === 'core' ? core : events.scope;
      for (const include of ['None', 'Metadata', 'Object'] as const) {
        const { sink, l } = await list(scope, 'big', `includeObject=${include}`, TABLE_N);
        const objs = l.items.map((s) => JSON.parse(s.value.toString('utf8')) as KubeObject);
        const rowObjects = l.items.map((s) => JSON.parse(servedBytes(scope, s.value).toString('utf8')) as KubeObject);
        const want = goJSON(toTable(scope, objs, { resourceVersion: l.resourceVersion }, include, true, Date.now(), rowObjects)) + '\n';
        assert.equal(sink.body(), want, include);
      }
    });
  }

  it('sends a list that fits one chunk in one write with its Content-Length', async () => {
    const { sink } = await list(events.scope, 'small', '', JSON_N);
    assert.equal(sink.writes, 1);
    assert.equal(sink.headers['content-length'], String(Buffer.byteLength(sink.body())));
    assert.equal((JSON.parse(sink.body()) as { items: unknown[] }).items.length, 2);
  });

  it('pages with limit and continue as before: metadata first, every item once, one snapshot', async () => {
    const seen: string[] = [];
    let cont = '';
    let rv = '';
    do {
      const { sink } = await list(events.scope, 'big', `limit=120${cont ? `&continue=${encodeURIComponent(cont)}` : ''}`, JSON_N);
      const doc = JSON.parse(sink.body()) as { metadata: { continue?: string; remainingItemCount?: number; resourceVersion: string }; items: KubeObject[] };
      if (!rv) {
        rv = doc.metadata.resourceVersion;
        assert.equal(doc.metadata.remainingItemCount, 180);
        await events.store.create('big', event(999, 'big'), undefined, { dryRun: false }); // after the first page: not in this walk
      }
      assert.equal(doc.metadata.resourceVersion, rv);
      seen.push(...doc.items.map((o) => o.metadata.name!));
      cont = doc.metadata.continue ?? '';
    } while (cont);
    assert.equal(seen.length, 300);
    assert.equal(new Set(seen).size, 300);
  });

  it('leaves at most the write window waiting in a slow socket, and a page no larger than it without a wait', async () => {
    const whole = new SlowSink();
    const { l } = await list(events.scope, 'huge', '', JSON_N, whole);
    assert.ok(whole.body().length > 2 * WRITE_WINDOW);
    assert.equal((JSON.parse(whole.body()) as { items: unknown[] }).items.length, l.items.length);
    assert.ok(whole.maxBuffered <= WRITE_WINDOW + 2 * CHUNK, `${whole.maxBuffered} bytes waiting`);
    const page = new SlowSink();
    await list(events.scope, 'huge', 'limit=500', JSON_N, page);
    assert.ok(page.body().length < WRITE_WINDOW);
    // The page never waited for the socket (it only lets the event loop turn now and then, so what is built leaves).
    assert.equal(page.drainWaits, 0);
    assert.ok(whole.drainWaits > 0, 'the whole list did wait');
  });

  it('filters a streamed list with selectors (index and scan)', async () => {
    const { sink } = await list(events.scope, 'big', 'fieldSelector=type%3DWarning&labelSelector=app%3Dweb', TABLE_N);
    const table = JSON.parse(sink.body()) as { rows: { cells: unknown[] }[] };
    assert.equal(table.rows.length, 40);
    assert.ok(table.rows.every((r) => r.cells[1] === 'Warning'));
  });
});
