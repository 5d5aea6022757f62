import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseCgroupMounts, podCgroupName, podQOS } from './cgroups.ts';

describe('corelet cgroups', () => {
  it('finds v2 and v1 hierarchies in /proc/mounts (hybrid layout)', () => {
    const m = parseCgroupMounts(
      'tmpfs /sys/fs/cgroup tmpfs rw 0 0\ncgroup /sys/fs/cgroup/cpu cgroup rw,relatime,cpu 0 0\ncgroup /sys/fs/cgroup/cpu,cpuacct cgroup rw,cpu,cpuacct 0 0\ncgroup /sys/fs/cgroup/systemd cgroup rw,name=systemd 0 0\ncgroup2 /sys/fs/cgroup/unified cgroup2 rw,relatime 0 0\n',
    );
    assert.deepEqual(m.v2, ['/sys/fs/cgroup/unified']);
    assert.deepEqual(m.v1, [
      { path: '/sys/fs/cgroup/cpu', controllers: ['cpu'] },
      { path: '/sys/fs/cgroup/cpu,cpuacct', controllers: ['cpu', 'cpuacct'] },
      { path: '/sys/fs/cgroup/systemd', controllers: [] },
    ]);
  });

  it("names pod cgroups as kubelet's cgroupfs driver", () => {
    assert.equal(podCgroupName('', 'Guaranteed', 'u1'), 'kubepods/podu1');
    assert.equal(podCgroupName('', 'Burstable', 'u1'), 'kubepods/burstable/podu1');
    assert.equal(podCgroupName('nodes/a', 'BestEffort', 'u1'), 'nodes/a/kubepods/besteffort/podu1');
  });

  it('derives the QoS class', () => {
    assert.equal(podQOS([{ requests: {}, limits: {} }]), 'BestEffort');
    assert.equal(podQOS([{ requests: {}, limits: { cpu: 100, memory: 1 } }]), 'Guaranteed');
    assert.equal(podQOS([{ requests: { cpu: 50 }, limits: { cpu: 100, memory: 1 } }]), 'Burstable');
    assert.equal(podQOS([{ requests: {}, limits: { cpu: 100, memory: 1 } }, { requests: {}, limits: {} }]), 'Burstable');
  });
});
