/** --storage-backend=etcd3 wiring: overrides put a group's storage on its own etcd; checks and sizes per cluster. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { EtcdClient } from '../storage/etcd3/client.ts';
import { etcdAvailable, startEtcd, type EtcdProcess } from '../storage/etcd3/testing/etcd-process.ts';
import { jsonCodec } from '../storage/testing/json-codec.ts';
import { EtcdClusters, progressAnswersEarly } from './etcd-storage.ts';
import { parseFlags } from './flags.ts';

it('etcd versions whose progress answers may overtake events (upstream\'s version check)', () => {
  assert.deepEqual(
    ['3.4.23', '3.4.30', '3.4.31', '3.5.0', '3.5.12', '3.5.13', '3.6.0', '2.3.8', 'x'].map(progressAnswersEarly),
    [true, true, false, true, true, false, false, true, true],
  );
});

describe('etcd clusters', { skip: !etcdAvailable() && 'no etcd binary' }, () => {
  let main: EtcdProcess;
  let events: EtcdProcess;
  before(async () => {
    [main, events] = await Promise.all([startEtcd(), startEtcd()]);
  });
  after(async () => {
    await Promise.all([main?.stop(), events?.stop()]);
  });

  const options = (...extra: string[]) => parseFlags(['--storage-backend=etcd3', `--etcd-servers=${main.endpoint}`, ...extra]).etcd;
  const keysIn = async (endpoint: string, prefix: string) => {
    const c = new EtcdClient({ endpoints: [endpoint] });
    const key = Buffer.from(prefix);
    const res = await c.call('range', { key, range_end: Buffer.from(prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1)), keys_only: true });
    c.close();
    return res.kvs.map((kv) => Buffer.from(kv.key).toString());
  };
  const thing = (name: string) => ({ apiVersion: 'v1', kind: 'Thing', metadata: { name, namespace: 'ns' } });

  it('an override of events.cluster.io/events (or core /events) moves the Events storage; other groups stay on --etcd-servers', async () => {
    const clusters = new EtcdClusters(options(`--etcd-servers-overrides=events.cluster.io/events#${events.endpoint}`));
    await clusters.checkReachable();
    const ev = clusters.open('events.cluster.io', jsonCodec);
    const rbac = clusters.open('rbac.authorization.k8s.io', jsonCodec);
    await ev.create('/events/ns/a', thing('a'));
    await rbac.create('/clusterroles/r', thing('r'));
    assert.deepEqual(await keysIn(events.endpoint, '/registry/'), ['/registry/events/ns/a']);
    assert.deepEqual(await keysIn(main.endpoint, '/registry/'), ['/registry/clusterroles/r']);
    assert.deepEqual(clusters.healthChecks().map((c) => [c.name, c.endpoints.join(',')]), [
      ['etcd', 'healthz,livez,readyz'],
      ['etcd-readiness', 'readyz'],
      ['etcd-override-0', 'healthz,livez,readyz'],
      ['etcd-override-readiness-0', 'readyz'],
    ]);
    for (const c of clusters.healthChecks()) await c.fn();
    assert.deepEqual(clusters.sizeSources().map((s) => s.endpoint), [main.endpoint, events.endpoint]);
    const count = clusters.countPoller(ev, '/events/');
    for (let i = 0; i < 100 && count() === undefined; i++) await new Promise((r) => setTimeout(r, 10));
    assert.equal(count(), 1);
    await ev.close();
    await rbac.close();
    clusters.close();

    const core = new EtcdClusters(options(`--etcd-servers-overrides=/events#${events.endpoint}`));
    const ev2 = core.open('events.cluster.io', jsonCodec);
    await ev2.create('/events/ns/b', thing('b'));
    assert.deepEqual(await keysIn(events.endpoint, '/registry/events/'), ['/registry/events/ns/a', '/registry/events/ns/b']);
    await ev2.close();
    core.close();
  });

  it('one group\'s resources sent to different etcds, and an unreachable etcd, stop the start naming the flag', async () => {
    const split = new EtcdClusters(options(`--etcd-servers-overrides=rbac.authorization.k8s.io/roles#${events.endpoint},rbac.authorization.k8s.io/clusterroles#${main.endpoint}`));
    assert.throws(() => split.open('rbac.authorization.k8s.io', jsonCodec), /^Error: --etcd-servers-overrides: the resources of rbac.authorization.k8s.io share one storage/);
    split.close();
    const dead = new EtcdClusters(options('--etcd-servers-overrides=events.cluster.io/events#http://127.0.0.1:1'));
    await assert.rejects(dead.checkReachable(600), /^Error: --etcd-servers-overrides: cannot reach etcd at http:\/\/127.0.0.1:1: /);
    dead.close();
  });
});
