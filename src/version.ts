/**
 * The server's versions, one source for `/version`, `/statusz` and the metrics (k8s.io/apimachinery's version.Info
 * and component-base's effective version): the spec describes release 1.36, so the binary and the emulated API are
 * 1.36 and the oldest release this one may run beside is 1.35 (upstream: binary minor − 1). gitVersion adds our own
 * package version as build metadata.
 */
import { readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const KUBE_MAJOR = '1';
export const KUBE_MINOR = '36';

/** `<major>.<minor>` of a release, as component-base's effective version reports each. */
export interface MajorMinor {
  major: number;
  minor: number;
}

/** The binary's release, the API behaviour it emulates (no `--emulated-version` yet), the oldest peer release. */
export const BINARY_VERSION: MajorMinor = { major: Number(KUBE_MAJOR), minor: Number(KUBE_MINOR) };
export const EMULATION_VERSION: MajorMinor = BINARY_VERSION;
export const MIN_COMPATIBILITY_VERSION: MajorMinor = { major: BINARY_VERSION.major, minor: BINARY_VERSION.minor - 1 };

/** `1.36`: how statusz and the metrics print a MajorMinor. */
export function majorMinor(v: MajorMinor): string {
  return `${v.major}.${v.minor}`;
}

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** The fields of `/version`. */
export interface VersionInfo {
  major: string;
  minor: string;
  emulationMajor: string;
  emulationMinor: string;
  minCompatibilityMajor: string;
  minCompatibilityMinor: string;
  gitVersion: string;
  gitCommit: string;
  gitTreeState: string;
  buildDate: string;
  goVersion: string;
  compiler: string;
  platform: string;
}

function packageVersion(): string {
  try {
    return (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version?: string }).version ?? '0.0.0';
  } catch {
    return '0.0.0';
  }
}

/** HEAD's commit read from the .git files (no `git` process): '' outside a checkout. */
export function readGitCommit(root: string = ROOT): string {
  try {
    let gitDir = join(root, '.git');
    if (statSync(gitDir).isFile()) {
      // A worktree or submodule: `.git` is a file pointing at the real directory.
      const target = /^gitdir: (.+)$/m.exec(readFileSync(gitDir, 'utf8'))?.[1]?.trim();
      if (!target) return '';
      gitDir = resolve(root, target);
    }
    const head = readFileSync(join(gitDir, 'HEAD'), 'utf8').trim();
    const ref = /^ref: (.+)$/.exec(head)?.[1];
    if (!ref) return /^[0-9a-f]{40,64}$/.test(head) ? head : '';
    // A linked worktree keeps only its HEAD; branches live in the main repository's directory (`commondir`).
    let common = gitDir;
    try {
      common = resolve(gitDir, readFileSync(join(gitDir, 'commondir'), 'utf8').trim());
    } catch {
      // not a linked worktree
    }
    for (const dir of new Set([gitDir, common])) {
      try {
        return readFileSync(join(dir, ref), 'utf8').trim();
      } catch {
        // not a loose ref here
      }
    }
    const packed = readFileSync(join(common, 'packed-refs'), 'utf8');
    return packed.split('\n').find((l) => l.endsWith(` ${ref}`))?.split(' ')[0] ?? '';
  } catch {
    return '';
  }
}

const GO_ARCH: Record<string, string> = { x64: 'amd64', ia32: '386', arm64: 'arm64', arm: 'arm', ppc64: 'ppc64le', s390x: 's390x' };

/** The `/version` document of this process. */
export const versionInfo: VersionInfo = {
  major: KUBE_MAJOR,
  minor: KUBE_MINOR,
  emulationMajor: String(EMULATION_VERSION.major),
  emulationMinor: String(EMULATION_VERSION.minor),
  minCompatibilityMajor: String(MIN_COMPATIBILITY_VERSION.major),
  minCompatibilityMinor: String(MIN_COMPATIBILITY_VERSION.minor),
  gitVersion: `v${KUBE_MAJOR}.${KUBE_MINOR}.0-core.0+${packageVersion()}`,
  gitCommit: readGitCommit(),
  // Knowing clean/dirty would take a `git status` at every start; upstream's "unknown" is ''.
  gitTreeState: '',
  // Upstream's value when the build does not stamp one; we run from source, so there is no build date.
  buildDate: '1970-01-01T00:00:00Z',
  goVersion: `node${process.versions.node}`,
  compiler: 'node',
  platform: `${process.platform}/${GO_ARCH[process.arch] ?? process.arch}`,
};

/**
 * The binary version as statusz reports it: gitVersion without its `v`, as upstream's parsed binary version prints
 * (pre-release and build metadata kept).
 */
export function binaryVersion(): string {
  return versionInfo.gitVersion.slice(1);
}

/** What `--version` prints, like kube-apiserver's `Kubernetes v1.36.0`. */
export function versionLine(): string {
  return `core-apiserver ${versionInfo.gitVersion}`;
}
