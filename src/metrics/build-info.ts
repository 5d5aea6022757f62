/** `cluster_build_info`: the build's version facts as labels of a gauge fixed at 1 (upstream `version.go` metrics). */
import type { VersionInfo } from '../version.ts';
import type { Registry } from './registry.ts';

export function registerBuildInfo(registry: Registry, v: VersionInfo): void {
  registry
    .gauge('cluster_build_info', 'A metric with a constant \'1\' value labeled by major, minor, git version, git commit, git tree state, build date, Go version, and compiler from which Kubernetes was built, and platform on which it is running.')
    .with(v.buildDate, v.compiler, v.gitCommit, v.gitTreeState, v.gitVersion, v.goVersion, v.major, v.minor, v.platform)
    .set(1);
}

/**
 * `version_info{component,binary,emulation,min_compat}` (upstream compatibility registry): the binary's version and
 * the versions it emulates and stays compatible with; the component is `core` where upstream says `kube`.
 */
export function registerVersionInfo(registry: Registry, binary: string, emulation: string, minCompat: string): void {
  registry.gauge('version_info', 'Provides the compatibility version info of the component. The component label is the name of the component, usually kube, but is relevant for aggregated-apiservers.').with(binary, 'core', emulation, minCompat).set(1);
}
