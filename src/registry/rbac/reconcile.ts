/**
 * Bootstrap policy at start (upstream `pkg/registry/rbac/rest/storage_rbac.go` EnsureRBACPolicy with
 * `pkg/registry/rbac/reconciliation`): a missing role or binding is created; an existing one gets what is missing —
 * rules, aggregation selectors, subjects, labels and annotations — and keeps whatever its users added, unless it
 * carries `rbac.authorization.kubernetes.io/autoupdate: "false"`, which leaves it alone. A binding whose roleRef
 * changed is recreated (roleRef is immutable).
 */
import { StatusError } from '../../apimachinery/errors.ts';
import type { KubeObject } from '../../apis/meta/v1/types.ts';
import type { ClusterRole, ClusterRoleBinding, Subject } from '../../apis/rbac/v1/types.ts';
import { AUTOUPDATE_ANNOTATION } from '../../apis/rbac/v1/types.ts';
import { covers } from '../../apis/rbac/v1/evaluation.ts';
import { log } from '../../util/log.ts';
import type { StandardStorage } from '../rest/rest.ts';
import { BOOTSTRAP_CLUSTER_ROLE_BINDINGS, BOOTSTRAP_CLUSTER_ROLES } from './bootstrap-policy.ts';

const MANAGER = 'core-apiserver';

const isProtected = (o: KubeObject) => o.metadata.annotations?.[AUTOUPDATE_ANNOTATION] === 'false';

/** Expected labels and annotations added; the existing values win. */
function mergedMeta<T extends KubeObject>(existing: T, expected: T): T {
  return {
    ...existing,
    metadata: {
      ...existing.metadata,
      labels: { ...expected.metadata.labels, ...existing.metadata.labels },
      annotations: { ...expected.metadata.annotations, ...existing.metadata.annotations },
    },
  };
}

export function reconcileClusterRole(existing: ClusterRole | null, expected: ClusterRole): ClusterRole {
  if (!existing) return structuredClone(expected);
  if (isProtected(existing)) return existing;
  const out = mergedMeta(existing, expected);
  const rules = [...(existing.rules ?? [])];
  for (const r of expected.rules ?? []) if (!covers(rules, [r]).covered) rules.push(r);
  out.rules = rules;
  if (expected.aggregationRule) {
    const selectors = [...(existing.aggregationRule?.clusterRoleSelectors ?? [])];
    for (const s of expected.aggregationRule.clusterRoleSelectors ?? []) if (!selectors.some((x) => JSON.stringify(x) === JSON.stringify(s))) selectors.push(s);
    out.aggregationRule = { clusterRoleSelectors: selectors };
  }
  return out;
}

const sameSubject = (a: Subject, b: Subject) => a.kind === b.kind && a.name === b.name && (a.namespace ?? '') === (b.namespace ?? '') && (a.apiGroup ?? '') === (b.apiGroup ?? '');

export function reconcileClusterRoleBinding(existing: ClusterRoleBinding | null, expected: ClusterRoleBinding): ClusterRoleBinding {
  if (!existing) return structuredClone(expected);
  if (isProtected(existing)) return existing;
  const out = mergedMeta(existing, expected);
  const subjects = [...(existing.subjects ?? [])];
  for (const s of expected.subjects ?? []) if (!subjects.some((x) => sameSubject(x, s))) subjects.push(s);
  out.subjects = subjects;
  return out;
}

function sameRef(a: ClusterRoleBinding, b: ClusterRoleBinding): boolean {
  return a.roleRef.kind === b.roleRef.kind && a.roleRef.name === b.roleRef.name && a.roleRef.apiGroup === b.roleRef.apiGroup;
}

/**
 * Runs one reconciliation; a stored object that cannot be read (a 500 naming a corrupt object, e.g. its encryption
 * key is gone) is logged and left as it is, so that one unreadable object does not stop the server from starting.
 */
async function unlessUnreadable(kind: string, name: string, fn: () => Promise<unknown>): Promise<boolean> {
  try {
    await fn();
    return true;
  } catch (e) {
    if (!(e instanceof StatusError && e.code === 500 && e.message.startsWith('StorageError: corrupt object'))) throw e;
    log.error('Cannot reconcile a bootstrap object that cannot be read; leaving it', { kind, name, err: e.message });
    return false;
  }
}

/** Creates or reconciles every bootstrap ClusterRole, then every bootstrap ClusterRoleBinding. */
export async function ensureBootstrapPolicy(stores: { clusterRoles: StandardStorage<ClusterRole>; clusterRoleBindings: StandardStorage<ClusterRoleBinding> }): Promise<void> {
  const opts = { dryRun: false, manager: MANAGER, recordManagedFields: true };
  for (const expected of BOOTSTRAP_CLUSTER_ROLES) {
    const name = expected.metadata.name!;
    await unlessUnreadable('ClusterRole', name, () => stores.clusterRoles.update('', name, { updatedObject: (cur) => reconcileClusterRole(cur, expected) }, opts));
  }
  for (const expected of BOOTSTRAP_CLUSTER_ROLE_BINDINGS) {
    const name = expected.metadata.name!;
    let recreate = false;
    const ok = await unlessUnreadable('ClusterRoleBinding', name, () =>
      stores.clusterRoleBindings.update(
      '',
      name,
      {
        updatedObject: (cur) => {
          recreate = !!cur && !isProtected(cur) && !sameRef(cur, expected);
          return recreate ? cur! : reconcileClusterRoleBinding(cur, expected);
        },
      },
      opts,
    ));
    if (ok && recreate) {
      log.info('Recreating bootstrap ClusterRoleBinding with a changed roleRef', { name });
      await stores.clusterRoleBindings.delete('', name, undefined, { dryRun: false });
      await stores.clusterRoleBindings.create('', structuredClone(expected), undefined, opts);
    }
  }
}
