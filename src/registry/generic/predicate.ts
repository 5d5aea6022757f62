/** Label and field selectors as one predicate over cached attributes. */
import type { FieldSelector } from '../../apimachinery/fields/selector.ts';
import type { LabelSelector } from '../../apimachinery/labels/selector.ts';
import { EVERYTHING, type ObjectAttrs, type Predicate } from '../../storage/cacher/types.ts';

export function buildPredicate(label: LabelSelector | undefined, field: FieldSelector | undefined): Predicate {
  const l = label && !label.isEmpty() ? label : undefined;
  const f = field && !field.isEmpty() ? field : undefined;
  if (!l && !f) return EVERYTHING;
  return {
    everything: false,
    matches(attrs: ObjectAttrs): boolean {
      if (l && !l.matches(attrs.labels)) return false;
      if (f && !f.matches(attrs.fields)) return false;
      return true;
    },
  };
}

/** True when the selectors narrow the result (upstream then leaves remainingItemCount out). */
export function hasSelectors(label: LabelSelector | undefined, field: FieldSelector | undefined): boolean {
  return !!((label && !label.isEmpty()) || (field && !field.isEmpty()));
}
