/**
 * Writing objects and lists in the negotiated form. Plain JSON reuses the stored bytes: a list is the stored items
 * joined between a head and a tail, streamed in chunks that respect socket backpressure (never one big string).
 */
import type { KubeObject } from '../../apis/meta/v1/types.ts';
import type { Served, ListResult } from '../../registry/generic/store.ts';
import { goJSON } from '../../apimachinery/codec/encode.ts';
import { writeAndDrain } from '../http-types.ts';
import { parseIncludeObject, type Negotiated } from '../negotiation.ts';
import { writeBytes, writeValue } from '../responsewriters.ts';
import { servedBytes, setWarnings, type RequestContext } from './context.ts';
import { partialObjectMetadata, toTable } from './table.ts';

const CHUNK = 64 * 1024;

/** The stored object (tables are computed from it whatever the view). */
function decode(ctx: RequestContext, s: Served): KubeObject {
  return s.object ?? ctx.scope.codec.decode(s.value);
}

/** The object as this scope's clients see it. */
function decodeServed(ctx: RequestContext, s: Served): KubeObject {
  if (!ctx.scope.convert) return decode(ctx, s);
  return JSON.parse(servedBytes(ctx.scope, s.value).toString('utf8')) as KubeObject;
}

export function writeObject(ctx: RequestContext, code: number, s: Served, n: Negotiated): void {
  setWarnings(ctx);
  if (n.as === 'Table') {
    const obj = decode(ctx, s);
    const include = parseIncludeObject(ctx.query.get('includeObject'));
    const rv = obj.metadata.resourceVersion;
    const rowObject = include === 'Object' ? [decodeServed(ctx, s)] : undefined;
    writeValue(ctx.res, code, toTable(ctx.scope, [obj], rv ? { resourceVersion: rv } : {}, include, true, Date.now(), rowObject), n);
    return;
  }
  if (n.as === 'PartialObjectMetadata') {
    writeValue(ctx.res, code, partialObjectMetadata(decode(ctx, s)), n);
    return;
  }
  writeBytes(ctx.res, code, servedBytes(ctx.scope, s.value), n);
}

function listMeta(l: ListResult): Record<string, unknown> {
  const m: Record<string, unknown> = { resourceVersion: l.resourceVersion };
  if (l.continue) m.continue = l.continue;
  if (l.remainingItemCount !== undefined) m.remainingItemCount = l.remainingItemCount;
  if (l.shardSelector) m.shardInfo = { selector: l.shardSelector };
  return m;
}

export async function writeList(ctx: RequestContext, l: ListResult, n: Negotiated): Promise<void> {
  setWarnings(ctx);
  const { scope, res } = ctx;
  if (n.as === 'Table') {
    const include = parseIncludeObject(ctx.query.get('includeObject'));
    if (n.mediaType === 'application/json' && !n.pretty) return streamTable(ctx, l, include);
    const objs = l.items.map((s) => decode(ctx, s));
    const rowObjects = include === 'Object' ? l.items.map((s) => decodeServed(ctx, s)) : undefined;
    writeValue(res, 200, toTable(scope, objs, listMeta(l), include, true, Date.now(), rowObjects), n);
    return;
  }
  if (n.as === 'PartialObjectMetadataList') {
    const items = l.items.map((s) => partialObjectMetadata(decode(ctx, s)));
    writeValue(res, 200, { kind: 'PartialObjectMetadataList', apiVersion: 'meta.k8s.io/v1', metadata: listMeta(l), items }, n);
    return;
  }
  if (n.mediaType !== 'application/json' || n.pretty) {
    const items = l.items.map((s) => decodeServed(ctx, s));
    writeValue(res, 200, { kind: scope.listKind, apiVersion: scope.groupVersion, metadata: listMeta(l), items }, n);
    return;
  }
  const head = Buffer.from(`{"kind":"${scope.listKind}","apiVersion":"${scope.groupVersion}","metadata":${goJSON(listMeta(l))},"items":[`);
  const tail = Buffer.from(']}\n');
  const values = scope.convert ? l.items.map((s) => servedBytes(scope, s.value)) : l.items.map((s) => s.value);
  let length = head.length + tail.length + Math.max(0, values.length - 1);
  for (const v of values) length += v.length;
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(length) });
  await streamItems(ctx, head, values, tail);
}

const COMMA = Buffer.from(',');

/**
 * A Table list, streamed row by row (what kubectl asks for): the first byte leaves at once and memory stays at one
 * chunk, instead of building every row of a large list before writing.
 */
async function streamTable(ctx: RequestContext, l: ListResult, include: 'None' | 'Metadata' | 'Object'): Promise<void> {
  const { scope, res } = ctx;
  const empty = toTable(scope, [], listMeta(l), include);
  const whole = goJSON(empty);
  const head = whole.slice(0, whole.length - 2); // drop the closing `]}` of the empty rows array
  res.writeHead(200, { 'content-type': 'application/json' });
  const now = Date.now();
  let parts: string[] = [head];
  let size = head.length;
  for (let i = 0; i < l.items.length; i++) {
    const s = l.items[i]!;
    const obj = decode(ctx, s);
    const rowObject = include === 'Object' ? (scope.convert ? decodeServed(ctx, s) : obj) : undefined;
    const row = toTable(scope, [obj], {}, include, false, now, rowObject ? [rowObject] : undefined).rows[0];
    const text = (i ? ',' : '') + goJSON(row);
    parts.push(text);
    size += text.length;
    if (size >= CHUNK) {
      const wait = writeAndDrain(res, parts.join(''));
      parts = [];
      size = 0;
      if (wait) await wait;
      if (res.destroyed) return;
    }
  }
  parts.push(']}\n');
  res.end(parts.join(''));
}

async function streamItems(ctx: RequestContext, head: Buffer, items: Buffer[], tail: Buffer): Promise<void> {
  const res = ctx.res;
  let parts: Buffer[] = [head];
  let size = head.length;
  for (let i = 0; i < items.length; i++) {
    if (i) {
      parts.push(COMMA);
      size++;
    }
    const v = items[i]!;
    parts.push(v);
    size += v.length;
    if (size >= CHUNK) {
      const wait = writeAndDrain(res, Buffer.concat(parts, size));
      parts = [];
      size = 0;
      if (wait) await wait;
      if (res.destroyed || (res as { writableEnded?: boolean }).writableEnded) return;
    }
  }
  parts.push(tail);
  size += tail.length;
  res.end(Buffer.concat(parts, size));
}
