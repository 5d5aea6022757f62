/**
 * ClusterRole aggregation (upstream's clusterrole-aggregation controller, run here in the server): the rules of a
 * ClusterRole with an aggregationRule are the rules of every other ClusterRole its selectors match, in name order
 * per selector, each distinct rule once. Any ClusterRole change schedules one pass over the aggregated roles; a
 * pass writes only the roles whose rules differ, and its own writes settle because they change nothing next time.
 */
import type { ClusterRole, PolicyRule } from '../../apis/rbac/v1/types.ts';
import { log } from '../../util/log.ts';
import type { StandardStorage } from '../rest/rest.ts';
import { labelSelectorMatches } from './selector.ts';
import type { RbacIndex } from './source.ts';

const MANAGER = 'clusterrole-aggregation-controller';

function sameRule(a: PolicyRule, b: PolicyRule): boolean {
  const eq = (x: string[] | undefined, y: string[] | undefined) => (x ?? []).length === (y ?? []).length && (x ?? []).every((v, i) => v === y![i]);
  return eq(a.verbs, b.verbs) && eq(a.apiGroups, b.apiGroups) && eq(a.resources, b.resources) && eq(a.resourceNames, b.resourceNames) && eq(a.nonResourceURLs, b.nonResourceURLs);
}

/** The rules `role` aggregates from `all`. */
export function aggregatedRules(role: ClusterRole, all: readonly ClusterRole[]): PolicyRule[] {
  const rules: PolicyRule[] = [];
  const byName = [...all].sort((a, b) => ((a.metadata.name ?? '') < (b.metadata.name ?? '') ? -1 : 1));
  for (const selector of role.aggregationRule?.clusterRoleSelectors ?? []) {
    for (const other of byName) {
      if (other.metadata.name === role.metadata.name || !labelSelectorMatches(selector, other.metadata.labels)) continue;
      for (const r of other.rules ?? []) if (!rules.some((x) => sameRule(x, r))) rules.push(r);
    }
  }
  return rules;
}

function recompute(cur: ClusterRole | null, index: RbacIndex): ClusterRole {
  // Deleted meanwhile: not for this controller to recreate.
  if (!cur) throw new Error('deleted');
  return { ...cur, rules: aggregatedRules(cur, [...index.clusterRoles.values()]) };
}

export function rulesEqual(a: readonly PolicyRule[], b: readonly PolicyRule[]): boolean {
  return a.length === b.length && a.every((r, i) => sameRule(r, b[i]!));
}

export function startClusterRoleAggregation(index: RbacIndex, store: StandardStorage<ClusterRole>): { stop(): void; settled(): Promise<void> } {
  let scheduled = false;
  let stopped = false;
  let running: Promise<void> = Promise.resolve();
  const pass = async () => {
    const all = [...index.clusterRoles.values()];
    for (const role of all) {
      if (stopped || !role.aggregationRule) continue;
      const want = aggregatedRules(role, all);
      if (rulesEqual(role.rules ?? [], want)) continue;
      const name = role.metadata.name ?? '';
      try {
        await store.update('', name, { updatedObject: (cur) => recompute(cur, index) }, {
          dryRun: false,
          manager: MANAGER,
          recordManagedFields: true,
        });
      } catch (e) {
        log.error('ClusterRole aggregation failed', { clusterRole: name, err: (e as Error).message });
      }
    }
  };
  const schedule = () => {
    if (scheduled || stopped) return;
    scheduled = true;
    running = running.then(
      () =>
        new Promise<void>((done) =>
          setImmediate(() => {
            scheduled = false;
            void pass().finally(done);
          }),
        ),
    );
  };
  index.clusterRoles.onChange(schedule);
  schedule();
  return {
    stop: () => void (stopped = true),
    settled: () => running,
  };
}
