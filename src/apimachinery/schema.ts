/**
 * A small structural schema language, the single source from which the codec (decode, unknown-field detection,
 * key order), OpenAPI v2/v3 and the apply field sets are derived. Property order is the Go struct order, which is
 * the JSON key order clients see.
 */

export type Schema =
  | { type: 'string'; format?: 'date-time' | 'micro-time' | 'byte'; description?: string; enum?: string[] }
  /** `pointer`: a Go `*int` field, which omitempty leaves out only when nil (0 is written). */
  | { type: 'integer'; format: 'int32' | 'int64'; description?: string; pointer?: boolean }
  | { type: 'boolean'; description?: string }
  | { type: 'ref'; ref: string; description?: string }
  | {
      type: 'array';
      items: Schema;
      description?: string;
      /** x-kubernetes-list-type */
      listType?: 'atomic' | 'set' | 'map';
      /** x-kubernetes-list-map-keys */
      listMapKeys?: string[];
      /** x-kubernetes-patch-strategy / x-kubernetes-patch-merge-key (strategic merge patch) */
      patchStrategy?: 'merge';
      patchMergeKey?: string;
    }
  | { type: 'map'; values: Schema; description?: string; mapType?: 'granular' | 'atomic' }
  /** Arbitrary JSON object (FieldsV1). */
  | { type: 'any-object'; description?: string };

export interface Property {
  name: string;
  schema: Schema;
  /** Emitted even when empty (Go field without omitempty): e.g. `eventTime: null`, `regarding: {}`. */
  alwaysEmit?: boolean;
}

export interface Definition {
  /** OpenAPI definition name, e.g. `io.cluster.api.events.v1.Event`. */
  name: string;
  description: string;
  properties: Property[];
  required?: string[];
  /** x-kubernetes-group-version-kind */
  gvk?: { group: string; version: string; kind: string }[];
  /** x-kubernetes-map-type on a struct: `atomic` structs are replaced whole by apply. */
  structType?: 'atomic' | 'granular';
  /** The definition is a string on the wire (Time, MicroTime). */
  stringFormat?: 'date-time' | 'micro-time';
}

export type Definitions = Map<string, Definition>;

export function defineAll(defs: Definition[]): Definitions {
  return new Map(defs.map((d) => [d.name, d]));
}

export function prop(name: string, schema: Schema, alwaysEmit = false): Property {
  return alwaysEmit ? { name, schema, alwaysEmit } : { name, schema };
}

export const str = (description?: string): Schema => (description ? { type: 'string', description } : { type: 'string' });
export const int32 = (description?: string): Schema => ({ type: 'integer', format: 'int32', ...(description ? { description } : {}) });
export const int64 = (description?: string): Schema => ({ type: 'integer', format: 'int64', ...(description ? { description } : {}) });
/** A Go `*int64`: nil is left out, 0 is written. */
export const int64Pointer = (description?: string): Schema => ({ type: 'integer', format: 'int64', pointer: true, ...(description ? { description } : {}) });
export const bool = (description?: string): Schema => ({ type: 'boolean', ...(description ? { description } : {}) });
export const ref = (name: string, description?: string): Schema => ({ type: 'ref', ref: name, ...(description ? { description } : {}) });
export const stringMap = (description?: string): Schema => ({
  type: 'map',
  values: { type: 'string' },
  ...(description ? { description } : {}),
});
