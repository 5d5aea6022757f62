/** `cluster_feature_enabled{name,stage}`: 1 or 0 for every feature gate (upstream `featuregate` metrics). */
import type { FeatureState } from '../features.ts';
import type { Registry } from './registry.ts';

export function registerFeatureEnabled(registry: Registry, gates: readonly FeatureState[]): void {
  const g = registry.gauge('cluster_feature_enabled', 'This metric records the data about the stage and enablement of a k8s feature.');
  for (const f of gates) g.with(f.name, f.stage).set(f.enabled ? 1 : 0);
}
