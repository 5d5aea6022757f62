/** `cluster_build_info`: the build's version facts as labels of a gauge fixed at 1 (upstream `version.go` metrics). */
import type { VersionInfo } from '../version.ts';
import type { Registry } from './registry.ts';

export function registerBuildInfo(registry: Registry, v: VersionInfo): void {
  registry
    .gauge('cluster_build_info', 'A metric with a constant \'1\' value labeled by major, minor, git version, git commit, git tree state, build date, Go version, and compiler from which Kubernetes was built, and platform on which it is running.')
    .with(v.buildDate, v.compiler, v.gitCommit, v.gitTreeState, v.gitVersion, v.goVersion, v.major, v.minor, v.platform)
    .set(1);
}
