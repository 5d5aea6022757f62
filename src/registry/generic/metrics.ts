/**
 * Object counts of the served resources (upstream's storage object count tracker): `apiserver_resource_objects
 * {group,resource}` and the deprecated `apiserver_storage_objects{resource}` (`<resource>.<group>`), read from each
 * resource's watch cache when the metrics are collected, so counting costs nothing between scrapes.
 */
import type { Registry } from '../../metrics/registry.ts';
import type { Cacher } from '../../storage/cacher/cacher.ts';

export interface CountedResource {
  group: string;
  resource: string;
  cacher: Cacher;
  /**
   * For the deprecated apiserver_storage_objects: polled from storage (etcd: a count every
   * --etcd-count-metric-poll-period, -1 after a failed one, as upstream); undefined until the first answer. Without
   * it, and always for apiserver_resource_objects, the watch cache's size (exact, and free to read) is used.
   */
  count?: () => number | undefined;
}

export function registerObjectCounts(registry: Registry, resources: readonly CountedResource[]): void {
  const objects = registry.gauge('apiserver_resource_objects', 'Number of stored objects at the time of last check split by kind. In case of a fetching error, the value will be -1.');
  const legacy = registry.gauge('apiserver_storage_objects', 'Number of stored objects at the time of last check split by kind. In case of a fetching error, the value will be -1.');
  const series = resources.map((r) => ({
    cacher: r.cacher,
    count: r.count,
    objects: objects.with(r.group, r.resource),
    legacy: legacy.with(r.group ? `${r.resource}.${r.group}` : r.resource),
  }));
  registry.onCollect(() => {
    for (const s of series) {
      s.objects.set(s.cacher.size);
      s.legacy.set(s.count?.() ?? s.cacher.size);
    }
  });
}
