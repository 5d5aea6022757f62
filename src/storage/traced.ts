/**
 * A Storage that reports its operations as spans of the request being served (upstream's etcd3 store starts
 * `Get etcd3`, `Create etcd3`, `GuaranteedUpdate etcd3`, `List(recursive=true) etcd3` and so on). Here the span
 * is named after the backend that serves it — `Create sqlite`, `GuaranteedUpdate sqlite`, `Delete sqlite`,
 * `Get sqlite`, `List(recursive=true) sqlite` — so that a trace says which store was asked, and a second backend
 * (etcd) names its own. Attributes as upstream: `audit-id`, `key`, and the `group`, `resource` and `type` of the
 * object the key belongs to; a list adds `resourceVersion`, `limit` and `continue`.
 *
 * The wrapper is put around the backend only when tracing is on (cmd): otherwise nothing here runs. With tracing
 * on, an operation outside a sampled request (the watch cache's list and watch, TTL deletions, compaction) makes
 * no span, because a span is only ever a child of a recording one.
 */
import type { Attributes } from '@opentelemetry/api';
import type { KubeObject } from '../apis/meta/v1/types.ts';
import { auditID, inChildSpan } from '../tracing/tracing.ts';
import type { DeleteOptions, GuaranteedUpdateOptions, ListOptions, Storage } from './interface.ts';

/** What the objects under a key are: upstream names the group/resource and the Go type of the object. */
export interface KeyOwner {
  group: string;
  resource: string;
  type: string;
}

export function tracedStorage(backend: Storage, ownerOf: (key: string) => KeyOwner | undefined): Storage {
  const suffix = ` ${backend.name}`;
  const attrs = (key: string, extra?: Attributes): Attributes => {
    const owner = ownerOf(key);
    return { 'audit-id': auditID(), key, ...(owner ? { group: owner.group, resource: owner.resource, type: owner.type } : {}), ...extra };
  };
  return {
    get name() {
      return backend.name;
    },
    get: (key) => inChildSpan(`Get${suffix}`, () => attrs(key), () => backend.get(key)),
    list: (prefix, opts?: ListOptions) =>
      inChildSpan(
        `List(recursive=true)${suffix}`,
        () => attrs(prefix, { resourceVersion: opts?.rv !== undefined ? String(opts.rv) : '', limit: opts?.limit ?? 0, continue: opts?.startKey ?? '' }),
        () => backend.list(prefix, opts),
      ),
    create: (key, obj: KubeObject, ttlSeconds?: number) => inChildSpan(`Create${suffix}`, () => attrs(key), () => backend.create(key, obj, ttlSeconds)),
    guaranteedUpdate: (key, opts: GuaranteedUpdateOptions) =>
      inChildSpan(`GuaranteedUpdate${suffix}`, () => attrs(key), async (span) => {
        const r = await backend.guaranteedUpdate(key, opts);
        span?.setAttributes({ created: r.created, noop: r.noop });
        return r;
      }),
    delete: (key, opts?: DeleteOptions) => inChildSpan(`Delete${suffix}`, () => attrs(key), () => backend.delete(key, opts)),
    watch: (prefix, fromRV, handler) => backend.watch(prefix, fromRV, handler),
    count: (prefix) => backend.count(prefix),
    currentRevision: () => backend.currentRevision(),
    compact: (rv) => backend.compact(rv),
    compactedRevision: () => backend.compactedRevision(),
    readinessCheck: () => backend.readinessCheck(),
    close: () => backend.close(),
  };
}
