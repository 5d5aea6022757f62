/**
 * Go's `%#v` of the structs upstream's access-review validation puts in its messages (field.Invalid with a struct
 * value prints it so, e.g. `authorization.NonResourceAttributes{Path:"/x", Verb:"get"}`): clients and people match
 * on these texts, so they are reproduced for the fields a request can carry.
 */
import type { ObjectMeta } from '../../apis/meta/v1/types.ts';
import type { NonResourceAttributes } from '../../apis/authorization/v1/types.ts';
import { goQuote } from '../../apimachinery/field.ts';

/** A field.Invalid value printed as it is, not quoted again (see InvalidGoValue). */
export class GoValue {
  constructor(readonly text: string) {}
}

export function goNonResourceAttributes(a: NonResourceAttributes | undefined): GoValue {
  // A nil pointer is printed as the string "null", quoted (upstream turns it into "null" before formatting).
  if (!a) return new GoValue('"null"');
  return new GoValue(`authorization.NonResourceAttributes{Path:${goQuote(a.path ?? '')}, Verb:${goQuote(a.verb ?? '')}}`);
}

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

/** time.Time's GoString (metav1.Time embeds it): the zero time for an absent timestamp. */
function goTime(rfc3339: string | undefined | null): string {
  const d = rfc3339 ? new Date(rfc3339) : undefined;
  if (!d || Number.isNaN(d.getTime())) return 'time.Date(1, time.January, 1, 0, 0, 0, 0, time.UTC)';
  return `time.Date(${d.getUTCFullYear()}, time.${MONTHS[d.getUTCMonth()]}, ${d.getUTCDate()}, ${d.getUTCHours()}, ${d.getUTCMinutes()}, ${d.getUTCSeconds()}, ${d.getUTCMilliseconds() * 1e6}, time.UTC)`;
}

function goStringMap(m: Record<string, string> | undefined): string {
  if (!m) return 'map[string]string(nil)';
  const keys = Object.keys(m).sort();
  return `map[string]string{${keys.map((k) => `${goQuote(k)}:${goQuote(m[k]!)}`).join(', ')}}`;
}

function goStrings(l: string[] | undefined): string {
  return l ? `[]string{${l.map(goQuote).join(', ')}}` : '[]string(nil)';
}

/** `%#v` of a v1.ObjectMeta; owner references and managed fields by count of entries (Go prints pointers in them). */
export function goObjectMeta(m: ObjectMeta): GoValue {
  const refs = m.ownerReferences?.length ? `[]v1.OwnerReference{${m.ownerReferences.map((r) => `v1.OwnerReference{APIVersion:${goQuote(r.apiVersion ?? '')}, Kind:${goQuote(r.kind ?? '')}, Name:${goQuote(r.name ?? '')}, UID:${goQuote(r.uid ?? '')}, Controller:(*bool)(nil), BlockOwnerDeletion:(*bool)(nil)}`).join(', ')}}` : '[]v1.OwnerReference(nil)';
  const managed = m.managedFields?.length ? `[]v1.ManagedFieldsEntry{${m.managedFields.map((e) => `v1.ManagedFieldsEntry{Manager:${goQuote(e.manager ?? '')}, Operation:${goQuote(e.operation ?? '')}, APIVersion:${goQuote(e.apiVersion ?? '')}}`).join(', ')}}` : '[]v1.ManagedFieldsEntry(nil)';
  const fields = [
    `Name:${goQuote(m.name ?? '')}`,
    `GenerateName:${goQuote(m.generateName ?? '')}`,
    `Namespace:${goQuote(m.namespace ?? '')}`,
    `SelfLink:${goQuote(m.selfLink ?? '')}`,
    `UID:${goQuote(m.uid ?? '')}`,
    `ResourceVersion:${goQuote(m.resourceVersion ?? '')}`,
    `Generation:${m.generation ?? 0}`,
    `CreationTimestamp:${goTime(m.creationTimestamp)}`,
    `DeletionTimestamp:${m.deletionTimestamp ? goTime(m.deletionTimestamp) : '<nil>'}`,
    `DeletionGracePeriodSeconds:${m.deletionGracePeriodSeconds === undefined || m.deletionGracePeriodSeconds === null ? '(*int64)(nil)' : `(*int64)(${m.deletionGracePeriodSeconds})`}`,
    `Labels:${goStringMap(m.labels)}`,
    `Annotations:${goStringMap(m.annotations)}`,
    `OwnerReferences:${refs}`,
    `Finalizers:${goStrings(m.finalizers)}`,
    `ManagedFields:${managed}`,
  ];
  return new GoValue(`v1.ObjectMeta{${fields.join(', ')}}`);
}
