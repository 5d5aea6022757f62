/** A metav1 LabelSelector (matchLabels and matchExpressions) as a predicate on labels (upstream LabelSelectorAsSelector). */
import type { LabelSelectorSpec } from '../../apis/rbac/v1/types.ts';

export function labelSelectorMatches(s: LabelSelectorSpec, labels: Readonly<Record<string, string>> | undefined): boolean {
  const l = labels ?? {};
  for (const [k, v] of Object.entries(s.matchLabels ?? {})) if (l[k] !== v) return false;
  for (const e of s.matchExpressions ?? []) {
    const has = Object.hasOwn(l, e.key);
    const values = e.values ?? [];
    switch (e.operator) {
      case 'In':
        if (!has || !values.includes(l[e.key]!)) return false;
        break;
      case 'NotIn':
        if (has && values.includes(l[e.key]!)) return false;
        break;
      case 'Exists':
        if (!has) return false;
        break;
      case 'DoesNotExist':
        if (has) return false;
        break;
      default:
        return false;
    }
  }
  return true;
}
