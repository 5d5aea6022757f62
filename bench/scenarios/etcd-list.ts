/**
 * Lists on the etcd backend (issue 14): a server started with `--storage-backend=etcd3` on a single-member etcd, the
 * large list size of scenario 3 loaded into one namespace through the API, then listed whole with
 * `?resourceVersion=0` (served from the watch cache, as upstream serves it) under scenario 3's goals, and with the
 * resourceVersion unset (on etcd before 3.4.31/3.5.13, Debian's 3.4.23 among them, a quorum read from etcd, as
 * upstream does there: figures only). Beside them, kube-apiserver 1.20 with etcd 3.4.23 on this machine class, as
 * ../shared/reference/performance-baselines.md §2g measured it (cited: kube-apiserver is neither packaged nor
 * buildable here, no Go toolchain).
 */
import { startEtcd } from '../baselines/etcd.ts';
import { startApiServer, startBareServer } from '../lib/apiserver.ts';
import type { BenchConfig } from '../lib/config.ts';
import { API_PREFIX } from '../lib/event.ts';
import { newSection, type Section } from '../lib/report.ts';
import { fmt } from '../lib/stats.ts';
import type { ToolStatus } from '../lib/tools.ts';
import { load } from './data.ts';
import { runLists } from './list.ts';

/** kube-apiserver 1.20.2 + etcd 3.4.23 on this machine class (reference §2g): list of all 95,362 events, 164.3 MB. */
const KUBE_APISERVER_LIST = { items: 95_362, mb: 164.3, fromCacheS: [2.48, 2.73, 3.14], fromEtcdS: [2.02, 3.08, 3.19], ttfbCacheS: '2.1–2.6', ttfbEtcdS: '1.5–2.9' };

export async function runEtcdList(cfg: BenchConfig, tools: { etcd: ToolStatus }, log: (m: string) => void): Promise<Section> {
  const L = cfg.listLarge;
  const title = '14b. List on the etcd backend';
  if (!tools.etcd.ok) {
    const s = newSection(title);
    s.notes.push(`Not measured: ${tools.etcd.note}.`);
    return s;
  }
  const etcd = await startEtcd();
  try {
    const server = await startApiServer(['--storage-backend=etcd3', `--etcd-servers=${etcd.endpoint}`], 'core-apiserver (etcd3)');
    try {
      const bare = await startBareServer(server.dataDir);
      try {
        const loaded = await load(cfg, server, { namespace: 'list-etcd', namePrefix: 'e-' }, 0, L);
        log(`  loaded ${fmt(L)} through etcd: ${fmt(loaded.okPerS)}/s`);
        const path = `${API_PREFIX}/namespaces/list-etcd/events`;
        const ours: string[][] = [];
        const section = await runLists(
          cfg,
          server,
          bare,
          [
            { label: `${fmt(L)} on etcd, resourceVersion=0 (watch cache)`, path: `${path}?resourceVersion=0`, events: L, goals: true },
            { label: `${fmt(L)} on etcd, resourceVersion unset (quorum read from etcd)`, path, events: L },
          ],
          [],
          log,
          {
            title,
            intro: `A server started with \`--storage-backend=etcd3\` on a single-member etcd from Debian (loopback, an 8 GiB quota), ${fmt(L)} events loaded into one namespace through the API (${fmt(loaded.okPerS)} creates/s at c=${cfg.loadConcurrency} on two HTTP/2 sessions, ${loaded.errors + (loaded.completed - (loaded.status['201'] ?? 0))} failed), then listed whole over HTTP/2 in JSON, each list alternating with the bare server sending a prebuilt buffer of the same byte count. With \`resourceVersion=0\` the list is served from the watch cache, as upstream serves it: judged by scenario 3's goals (G14b, G14c, G14d are G5a, G5b, G5c; the first byte is curl's on a new connection, its TLS handshake included, as the reference measured: see the first-byte table). With the resourceVersion unset it is a consistent read; etcd 3.4.23 may answer a watch progress request ahead of pending events (README, "Running on etcd"), so this server reads it from etcd, as upstream does on such versions: figures only.`,
            goalIds: ['G14b', 'G14c', 'G14d'],
            onCase: (c, m) => ours.push([`core-apiserver (this run): ${c.label.replace(`${fmt(L)} on etcd, `, '')}`, fmt(L), fmt(m.bytes / 1e6), fmt(m.totalMs / 1000), fmt(m.ttfbMs / 1000), fmt(L / (m.totalMs / 1000))]),
          },
        );
        section.tables.push({
          caption:
            'Against kube-apiserver on the same machine class (cited from ../shared/reference/performance-baselines.md §2g, not measured in this run: kube-apiserver 1.20.2 built from Debian\'s source package, etcd 3.4.23, `curl` over HTTPS, all events at cluster scope, ~1.7 KB per item with managedFields; min / median / max of 3 runs). Ours: the medians above (one namespace, ~1.2 KB per item with managedFields; first byte: the Node fetch process\'s, its cold TLS handshake included).',
          head: ['list', 'items', 'MB', 'total s', 'first byte s', 'items/s (median)'],
          rows: [
            ...ours,
            ['kube-apiserver, resourceVersion=0 (watch cache)', fmt(KUBE_APISERVER_LIST.items), String(KUBE_APISERVER_LIST.mb), KUBE_APISERVER_LIST.fromCacheS.join(' / '), KUBE_APISERVER_LIST.ttfbCacheS, fmt(KUBE_APISERVER_LIST.items / KUBE_APISERVER_LIST.fromCacheS[1]!)],
            ['kube-apiserver, resourceVersion unset (from etcd)', fmt(KUBE_APISERVER_LIST.items), String(KUBE_APISERVER_LIST.mb), KUBE_APISERVER_LIST.fromEtcdS.join(' / '), KUBE_APISERVER_LIST.ttfbEtcdS, fmt(KUBE_APISERVER_LIST.items / KUBE_APISERVER_LIST.fromEtcdS[1]!)],
          ],
        });
        return section;
      } finally {
        await bare.stop();
      }
    } finally {
      await server.stop();
    }
  } finally {
    await etcd.stop();
  }
}
