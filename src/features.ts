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
}

/** Gates of this server, plus the two meta-gates every Kubernetes component accepts. */
const KNOWN: readonly FeatureSpec[] = [
  { name: 'AllAlpha', default: false, stage: 'ALPHA' },
  { name: 'AllBeta', default: false, stage: 'BETA' },
  /** shardSelector on list and watch (KEP-5866). */
  { name: 'ShardedListAndWatch', default: false, stage: 'ALPHA' },
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
    for (const name of Object.keys(map)) validateName(name);
    this.#overrides = new Map(Object.entries(map));
  }

  known(): FeatureSpec[] {
    return [...this.#known.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)).map((f) => ({ ...f }));
  }

  toString(): string {
    return formatGates(Object.fromEntries(this.#overrides));
  }
}

/** Throws `unrecognized feature gate: <name>` unless the gate is known. */
export function validateName(name: string): void {
  if (!KNOWN.some((f) => f.name === name)) throw new Error(`unrecognized feature gate: ${name}`);
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
