/** Label, field and shard selectors as one predicate over cached attributes. */
import type { FieldSelector } from '../../apimachinery/fields/selector.ts';
import type { LabelSelector } from '../../apimachinery/labels/selector.ts';
import type { ListOptions } from '../../apimachinery/list-options.ts';
import type { ShardSelector } from '../../apimachinery/sharding/selector.ts';
import { EVERYTHING, type ObjectAttrs, type Predicate } from '../../storage/cacher/types.ts';

type Selectors = Pick<ListOptions, 'labelSelector' | 'fieldSelector' | 'shardSelector'>;

export function buildPredicate(opts: Selectors): Predicate {
  const l: LabelSelector | undefined = opts.labelSelector && !opts.labelSelector.isEmpty() ? opts.labelSelector : undefined;
  const f: FieldSelector | undefined = opts.fieldSelector && !opts.fieldSelector.isEmpty() ? opts.fieldSelector : undefined;
  const sh: ShardSelector | undefined = opts.shardSelector;
  if (!l && !f && !sh) return EVERYTHING;
  const byUID = sh?.field === 'object.metadata.uid';
  const exact = f ? f.requirements.filter((r) => r.operator !== '!=').map((r) => ({ field: r.field, value: r.value })) : [];
  const terms = f ? f.requirements : [];
  return {
    everything: false,
    exact,
    matches(attrs: ObjectAttrs): boolean {
      if (l && !l.matches(attrs.labels)) return false;
      // FieldSelector.matches over attrs.field (cached attributes have no record of fields): a field the resource
      // lacks reads as '', as upstream's fields.Set does. A plain loop: this runs once per object a list scans.
      for (let i = 0; i < terms.length; i++) {
        const r = terms[i]!;
        const v = attrs.field(r.field);
        if (r.operator === '!=' ? v === r.value : v !== r.value) return false;
      }
      if (sh && !sh.matches(byUID ? attrs.uid : attrs.namespace)) return false;
      return true;
    },
  };
}

/** True when the selectors narrow the result (upstream then leaves remainingItemCount out). */
export function hasSelectors(opts: Selectors): boolean {
  return !!((opts.labelSelector && !opts.labelSelector.isEmpty()) || (opts.fieldSelector && !opts.fieldSelector.isEmpty()) || opts.shardSelector);
}
