/**
 * Two small resources for tests of the generic machinery, one of each scope: Widgets live in namespaces, Gadgets
 * at the cluster level (group `testing.cluster.io`). Each is nothing but a definition, as the README's "Adding a
 * resource" describes, so the tests show that a definition is all a resource needs.
 */
import type { KubeObject } from '../../apis/meta/v1/types.ts';
import { listDefinition, metaDefinitions, OBJECT_META, typeMeta } from '../../apis/meta/v1/schema.ts';
import { encode } from '../../apimachinery/codec/encode.ts';
import { spliceResourceVersion } from '../../apimachinery/codec/resource-version-splice.ts';
import { type FieldError, invalid } from '../../apimachinery/field.ts';
import { defineAll, int64, prop, ref, str, stringMap, type Definitions } from '../../apimachinery/schema.ts';
import type { ResourceDefinition } from '../generic/registration.ts';
import type { Strategy } from '../rest/strategy.ts';

export const GROUP = 'testing.cluster.io';
export const VERSION = 'v1';

export interface Widget extends KubeObject {
  spec?: { size?: number; color?: string; tags?: Record<string, string> };
  status?: { phase?: string };
}

const WIDGET = 'io.cluster.api.testing.v1.Widget';
const WIDGET_LIST = 'io.cluster.api.testing.v1.WidgetList';
const GADGET = 'io.cluster.api.testing.v1.Gadget';
const GADGET_LIST = 'io.cluster.api.testing.v1.GadgetList';
const SPEC = 'io.cluster.api.testing.v1.WidgetSpec';
const STATUS = 'io.cluster.api.testing.v1.WidgetStatus';

function objectDefinition(name: string, kind: string): Definitions extends Map<string, infer D> ? D : never {
  return {
    name,
    description: `A ${kind}, for tests.`,
    gvk: [{ group: GROUP, version: VERSION, kind }],
    properties: [...typeMeta, prop('metadata', ref(OBJECT_META, 'Standard object metadata.')), prop('spec', ref(SPEC, 'What the object should be.')), prop('status', ref(STATUS, 'What it is.'))],
  };
}

export const WIDGET_DEFS: Definitions = defineAll([
  ...metaDefinitions,
  { name: SPEC, description: 'Desired state.', properties: [prop('size', int64('Size; not negative.')), prop('color', str('Color.')), prop('tags', stringMap('Tags.'))] },
  { name: STATUS, description: 'Observed state.', properties: [prop('phase', str('Phase.'))] },
  objectDefinition(WIDGET, 'Widget'),
  listDefinition(WIDGET_LIST, WIDGET, { group: GROUP, version: VERSION, kind: 'WidgetList' }, 'A list of Widgets.', 'The Widgets.'),
  objectDefinition(GADGET, 'Gadget'),
  listDefinition(GADGET_LIST, GADGET, { group: GROUP, version: VERSION, kind: 'GadgetList' }, 'A list of Gadgets.', 'The Gadgets.'),
]);

function strategy(namespaceScoped: boolean): Strategy<Widget> {
  const validate = (w: Widget) => {
    const errs: FieldError[] = [];
    if ((w.spec?.size ?? 0) < 0) errs.push(invalid('spec.size', w.spec?.size, 'must be greater than or equal to 0'));
    return errs;
  };
  return {
    namespaceScoped,
    defaults: (w) => {
      w.spec ??= {};
      w.spec.size ??= 1;
    },
    // Status is not the client's to set on create; an update keeps the stored one.
    prepareForCreate: (w) => void delete w.status,
    validate,
    allowCreateOnUpdate: namespaceScoped,
    prepareForUpdate: (w, old) => {
      if (old.status) w.status = old.status;
      else delete w.status;
    },
    validateUpdate: (w) => validate(w),
    allowUnconditionalUpdate: !namespaceScoped,
    warningsOnCreate: (w) => (w.spec?.color === 'beige' ? ['beige is discouraged'] : []),
  };
}

function codec(definition: string) {
  return {
    encode: (obj: KubeObject) => encode(obj, WIDGET_DEFS, definition),
    decode: (value: Buffer) => JSON.parse(value.toString('utf8')) as Widget,
    setResourceVersion: spliceResourceVersion,
  };
}

/** Namespaced; PUT creates; updates need a resourceVersion; a Table of its own. */
export function widgetDefinition(extra: Partial<ResourceDefinition<Widget>> = {}): ResourceDefinition<Widget> {
  return {
    group: GROUP,
    version: VERSION,
    kind: 'Widget',
    resource: 'widgets',
    shortNames: ['wd'],
    categories: ['all'],
    strategy: strategy(true),
    codec: codec(WIDGET),
    defs: WIDGET_DEFS,
    definition: WIDGET,
    listDefinition: WIDGET_LIST,
    table: {
      columns: [
        { name: 'Name', type: 'string', format: 'name', description: 'Name.', priority: 0 },
        { name: 'Size', type: 'integer', format: '', description: 'Size.', priority: 0 },
      ],
      cells: (w) => [w.metadata.name ?? '', w.spec?.size ?? 0],
    },
    ...extra,
  };
}

/** Cluster-scoped; PUT of a missing one is 404; unconditional updates allowed; the default Table. */
export function gadgetDefinition(extra: Partial<ResourceDefinition<Widget>> = {}): ResourceDefinition<Widget> {
  return {
    group: GROUP,
    version: VERSION,
    kind: 'Gadget',
    resource: 'gadgets',
    strategy: strategy(false),
    codec: codec(GADGET),
    defs: WIDGET_DEFS,
    definition: GADGET,
    listDefinition: GADGET_LIST,
    ...extra,
  };
}
