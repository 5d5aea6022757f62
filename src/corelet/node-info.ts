/**
 * The Node's `status.nodeInfo`, read from this machine as kubelet reads it (cadvisor's MachineInfo and the
 * runtime's version): a value the machine does not give (e.g. a product UUID only root may read) stays '', as
 * kubelet leaves it, rather than being made up.
 */
import { readFileSync } from 'node:fs';
import { release } from 'node:os';
import { versionInfo } from '../version.ts';

const GO_ARCH: Record<string, string> = { x64: 'amd64', ia32: '386', arm64: 'arm64', arm: 'arm', ppc64: 'ppc64le', s390x: 's390x' };

function firstLine(path: string): string {
  try {
    return readFileSync(path, 'utf8').split('\n')[0]!.trim();
  } catch {
    return '';
  }
}

/** PRETTY_NAME of os-release(5), kubelet's osImage ("Debian GNU/Linux 12 (bookworm)"). */
export function osImage(text: string): string {
  for (const line of text.split('\n')) {
    const m = /^PRETTY_NAME=(.*)$/.exec(line.trim());
    if (m) return m[1]!.replace(/^(["'])(.*)\1$/, '$2');
  }
  return '';
}

export function nodeSystemInfo(): Record<string, string> {
  let osRelease = '';
  for (const p of ['/etc/os-release', '/usr/lib/os-release']) {
    try {
      osRelease = readFileSync(p, 'utf8');
      break;
    } catch {
      // The next one.
    }
  }
  return {
    machineID: firstLine('/etc/machine-id'),
    systemUUID: firstLine('/sys/class/dmi/id/product_uuid').toUpperCase(),
    bootID: firstLine('/proc/sys/kernel/random/boot_id'),
    kernelVersion: release(),
    osImage: osImage(osRelease),
    // The corelet runs containers itself, as processes: it is its own runtime ("<runtime>://<version>").
    containerRuntimeVersion: `corelet://${versionInfo.gitVersion}`,
    kubeletVersion: versionInfo.gitVersion,
    // Deprecated upstream and no longer set by kubelet.
    kubeProxyVersion: '',
    operatingSystem: process.platform,
    architecture: GO_ARCH[process.arch] ?? process.arch,
  };
}
