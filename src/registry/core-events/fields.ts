/**
 * Field selectors on core/v1 Events (kubernetes `pkg/apis/core/v1/conversion.go` AddFieldLabelConversionsForEvent
 * and the internal Event's selectable fields). The watch cache keys each object's attributes by the
 * events.cluster.io/v1 labels (registry/events/fields.ts), so core labels are mapped onto those.
 */

/** core/v1 label → events.cluster.io/v1 label (the cached attribute); labels not listed are the same in both. */
export const CORE_EVENT_FIELD_LABEL_MAP: ReadonlyMap<string, string> = new Map([
  ['involvedObject.kind', 'regarding.kind'],
  ['involvedObject.namespace', 'regarding.namespace'],
  ['involvedObject.name', 'regarding.name'],
  ['involvedObject.uid', 'regarding.uid'],
  ['involvedObject.apiVersion', 'regarding.apiVersion'],
  ['involvedObject.resourceVersion', 'regarding.resourceVersion'],
  ['involvedObject.fieldPath', 'regarding.fieldPath'],
  ['reportingComponent', 'reportingController'],
]);

/**
 * The labels a core/v1 fieldSelector may use; anything else (`regarding.name`, `reportingController`, `message`...)
 * is a 400 `field label not supported: <label>`. `source` is source.component, falling back to the reporting
 * component, exactly as the events.cluster.io/v1 `source` label.
 */
export const CORE_EVENT_FIELD_LABELS: ReadonlySet<string> = new Set([
  ...CORE_EVENT_FIELD_LABEL_MAP.keys(),
  'reason',
  'source',
  'type',
  'metadata.namespace',
  'metadata.name',
]);
