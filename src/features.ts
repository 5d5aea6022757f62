/**
 * Feature gates, as component-base/featuregate models them: every gate has a default and a stage, `--feature-gates`
 * overrides some of them, and `AllAlpha` / `AllBeta` switch every alpha / beta gate that is not set by name.
 * One process-wide registry (upstream's utilfeature.DefaultFeatureGate), read by request handling.
 */

/** Upstream's prerelease names; GA gates have an empty stage. */
export type FeatureStage = 'ALPHA' | 'BETA' | '' | 'DEPRECATED';

export interface FeatureSpec {
  name: string;
  default: boolean;
  stage: FeatureStage;
  /** Graduated gates are locked to their default: `--feature-gates` may restate it, never change it. */
  lockToDefault?: boolean;
}

/** A gate as the `cluster_feature_enabled{name,stage}` gauge reports it. */
export interface FeatureState {
  name: string;
  stage: FeatureStage;
  enabled: boolean;
}

/**
 * Every gate the spec documents, at its stage and default in release 1.36 (see version.ts), plus the two meta-gates
 * every Kubernetes component accepts. Components share one list, as upstream's gates are shared through
 * utilfeature: a gate for another component (the corelet's) is known here but changes nothing in this server.
 */
const KNOWN: readonly FeatureSpec[] = [
  { name: 'AllAlpha', default: false, stage: 'ALPHA' },
  { name: 'AllBeta', default: false, stage: 'BETA' },
  /** Delete with ignoreStoreReadErrorWithClusterBreakingPotential removes a stored object that cannot be read: alpha since 1.32. */
  { name: 'AllowUnsafeMalformedObjectDeletion', default: false, stage: 'ALPHA' },
  /** The /flagz endpoint (beta, on by default since 1.35's structured form). */
  { name: 'ComponentFlagz', default: true, stage: 'BETA' },
  /** /metrics/slis health-check metrics: GA in 1.32. */
  { name: 'ComponentSLIs', default: true, stage: '', lockToDefault: true },
  /** The /statusz endpoint. */
  { name: 'ComponentStatusz', default: true, stage: 'BETA' },
  /** Pressure stall information of nodes, pods and containers: GA in 1.36. */
  { name: 'CoreletPSI', default: true, stage: '', lockToDefault: true },
  /** KMS v1 encryption providers: deprecated since 1.29, off by default (this server implements KMS v2 only). */
  { name: 'KMSv1', default: false, stage: 'DEPRECATED' },
  /** Native histograms in the protobuf /metrics exposition: alpha in 1.36. */
  { name: 'NativeHistograms', default: false, stage: 'ALPHA' },
  /** The node agent reads pod and container statistics from the runtime (CRI): alpha since 1.23. */
  { name: 'PodAndContainerStatsFromCRI', default: false, stage: 'ALPHA' },
  /** shardSelector on list and watch (KEP-5866). */
  { name: 'ShardedListAndWatch', default: false, stage: 'ALPHA' },
  /** The JWT authenticators' JWKS fetch metrics (beta, on by default since 1.35). */
  { name: 'StructuredAuthenticationConfigurationJWKSMetrics', default: true, stage: 'BETA' },
  /** HTTP/2 connections of unauthenticated and anonymous requests are closed after the response (beta, on since 1.29). */
  { name: 'UnauthenticatedHTTP2DOSMitigation', default: true, stage: 'BETA' },
];

const META_GATES: Record<string, FeatureStage> = { AllAlpha: 'ALPHA', AllBeta: 'BETA' };

export interface FeatureGates {
  /** Whether the gate is on: set by name, else by AllAlpha/AllBeta for its stage, else its default. */
  enabled(name: string): boolean;
  /**
   * Replaces every override with `map` (gates left out return to their defaults). Throws
   * `unrecognized feature gate: <name>` for an unknown gate and changes nothing then.
   */
  set(map: Record<string, boolean>): void;
  /** Every known gate, sorted by name. */
  known(): FeatureSpec[];
  /** Every known gate with whether it is on now, sorted by name. */
  list(): FeatureState[];
  /** The overrides as `--feature-gates` prints its value: `A=true,B=false`, sorted. */
  toString(): string;
}

class Registry implements FeatureGates {
  #overrides = new Map<string, boolean>();
  readonly #known = new Map(KNOWN.map((f) => [f.name, f]));

  enabled(name: string): boolean {
    const spec = this.#known.get(name);
    if (!spec) throw new Error(`feature "${name}" is not registered in FeatureGate`);
    const own = this.#overrides.get(name);
    if (own !== undefined) return own;
    for (const [meta, stage] of Object.entries(META_GATES)) {
      const all = this.#overrides.get(meta);
      if (all !== undefined && spec.stage === stage && !(name in META_GATES)) return all;
    }
    return spec.default;
  }

  set(map: Record<string, boolean>): void {
    for (const [name, value] of Object.entries(map)) validateGate(name, value);
    this.#overrides = new Map(Object.entries(map));
  }

  list(): FeatureState[] {
    return this.known().map((f) => ({ name: f.name, stage: f.stage, enabled: this.enabled(f.name) }));
  }

  known(): FeatureSpec[] {
    return [...this.#known.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)).map((f) => ({ ...f }));
  }

  toString(): string {
    return formatGates(Object.fromEntries(this.#overrides));
  }
}

/**
 * Throws component-base featureGate.Set's error for a gate it would refuse: `unrecognized feature gate: <name>`
 * for an unknown gate, `cannot set feature gate <name> to <value>, feature is locked to <default>` for a change
 * of a locked one.
 */
export function validateGate(name: string, value: boolean): void {
  const spec = KNOWN.find((f) => f.name === name);
  if (!spec) throw new Error(`unrecognized feature gate: ${name}`);
  if (spec.lockToDefault && value !== spec.default) {
    throw new Error(`cannot set feature gate ${name} to ${value}, feature is locked to ${spec.default}`);
  }
}

/** `A=true,B=false` in Go's sorted order (pairs sorted as strings), as featureGate.String() prints. */
export function formatGates(map: Record<string, boolean>): string {
  return Object.entries(map)
    .map(([k, v]) => `${k}=${v}`)
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
    .join(',');
}

/** The process-wide feature gates; `--feature-gates` sets them at startup. */
export const featureGates: FeatureGates = new Registry();
