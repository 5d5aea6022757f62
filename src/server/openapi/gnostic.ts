/**
 * Encodes a Swagger 2.0 JSON document as gnostic's `openapi.v2.Document` protobuf (google/gnostic
 * openapiv2/OpenAPIv2.proto): maps become repeated Named* pairs, oneofs are chosen from the JSON shape, and
 * `x-` keys and free values (default, enum, example) become `Any` with their YAML text, as gnostic's compiler does.
 * Keys we do not know throw, so nothing is silently dropped from what kubectl sees.
 */
import YAML from 'yaml';
import { ProtoWriter } from './protobuf.ts';

type Obj = Record<string, unknown>;
type Field = (w: ProtoWriter, value: unknown) => void;
type Table = Record<string, Field>;

function obj(v: unknown, what: string): Obj {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new Error(`swagger protobuf: ${what} must be an object`);
  return v as Obj;
}
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : [v]);

const str = (n: number): Field => (w, v) => w.string(n, String(v));
const strs = (n: number): Field => (w, v) => w.strings(n, list(v).map(String));
const bool = (n: number): Field => (w, v) => w.bool(n, Boolean(v));
const int = (n: number): Field => (w, v) => w.int64(n, Number(v));
const dbl = (n: number): Field => (w, v) => w.double(n, Number(v));
const msg = (n: number, enc: (v: unknown) => ProtoWriter): Field => (w, v) => w.message(n, enc(v));
const each = (n: number, enc: (v: unknown) => ProtoWriter): Field => (w, v) => list(v).forEach((x) => w.message(n, enc(x)));
/** A JSON map as repeated `{name = 1, value = 2}` pairs. */
const named = (n: number, enc: (v: unknown) => ProtoWriter): Field => (w, v) =>
  Object.entries(obj(v, 'map')).forEach(([k, x]) => w.message(n, new ProtoWriter().string(1, k).message(2, enc(x))));
const any = (v: unknown): ProtoWriter => new ProtoWriter().string(2, YAML.stringify(v));

/** Writes `o` by `table` (in table order), then its `x-` keys as NamedAny at `extField`. */
function encode(o: Obj, table: Table, extField: number | undefined, what: string): ProtoWriter {
  const w = new ProtoWriter();
  for (const key of Object.keys(o)) {
    if (!(key in table) && !(key.startsWith('x-') && extField !== undefined)) throw new Error(`swagger protobuf: unsupported key ${key} in ${what}`);
  }
  for (const [key, field] of Object.entries(table)) if (o[key] !== undefined) field(w, o[key]);
  if (extField !== undefined) {
    for (const [key, v] of Object.entries(o)) if (key.startsWith('x-')) w.message(extField, new ProtoWriter().string(1, key).message(2, any(v)));
  }
  return w;
}
const message = (table: Table, extField: number | undefined, what: string) => (v: unknown) => encode(obj(v, what), table, extField, what);

/** The validation keywords shared, in this order, by PrimitivesItems and the non-body parameter sub-schemas. */
function primitiveFields(first: number): Table {
  const kinds: [string, (n: number) => Field][] = [
    ['type', str], ['format', str], ['items', (n) => msg(n, (v) => primitivesItems(v))], ['collectionFormat', str], ['default', (n) => msg(n, any)],
    ['maximum', dbl], ['exclusiveMaximum', bool], ['minimum', dbl], ['exclusiveMinimum', bool], ['maxLength', int], ['minLength', int],
    ['pattern', str], ['maxItems', int], ['minItems', int], ['uniqueItems', bool], ['enum', (n) => each(n, any)], ['multipleOf', dbl],
  ];
  return Object.fromEntries(kinds.map(([k, f], i) => [k, f(first + i)]));
}
const PRIMITIVE_COUNT = 17;
const primitivesItems = message(primitiveFields(1), 1 + PRIMITIVE_COUNT, 'items');

const externalDocs = message({ description: str(1), url: str(2) }, 3, 'externalDocs');

const schema: (v: unknown) => ProtoWriter = message(
  {
    $ref: str(1), format: str(2), title: str(3), description: str(4), default: msg(5, any), multipleOf: dbl(6), maximum: dbl(7),
    exclusiveMaximum: bool(8), minimum: dbl(9), exclusiveMinimum: bool(10), maxLength: int(11), minLength: int(12), pattern: str(13),
    maxItems: int(14), minItems: int(15), uniqueItems: bool(16), maxProperties: int(17), minProperties: int(18), required: strs(19),
    enum: each(20, any),
    additionalProperties: (w, v) =>
      w.message(21, typeof v === 'boolean' ? new ProtoWriter().oneofBool(2, v) : new ProtoWriter().message(1, schema(v))),
    type: (w, v) => w.message(22, new ProtoWriter().strings(1, list(v).map(String))),
    items: (w, v) => w.message(23, list(v).reduce((iw: ProtoWriter, s) => iw.message(1, schema(s)), new ProtoWriter())),
    allOf: each(24, (v) => schema(v)),
    properties: (w, v) => w.message(25, encodeNamed(v, schema)),
    discriminator: str(26), readOnly: bool(27), externalDocs: msg(29, externalDocs), example: msg(30, any),
  },
  31,
  'schema',
);

function encodeNamed(v: unknown, enc: (v: unknown) => ProtoWriter): ProtoWriter {
  const w = new ProtoWriter();
  named(1, enc)(w, v);
  return w;
}

const head = { required: bool(1), in: str(2), description: str(3), name: str(4) };
const pathOrHeaderParam = message({ ...head, ...primitiveFields(5) }, 5 + PRIMITIVE_COUNT, 'path parameter');
const queryOrFormParam = message({ ...head, allowEmptyValue: bool(5), ...primitiveFields(6) }, 6 + PRIMITIVE_COUNT, 'query parameter');
const bodyParam = message({ description: str(1), name: str(2), in: str(3), required: bool(4), schema: msg(5, schema) }, 6, 'body parameter');
const NON_BODY: Record<string, [number, (v: unknown) => ProtoWriter]> = {
  header: [1, pathOrHeaderParam],
  formData: [2, queryOrFormParam],
  query: [3, queryOrFormParam],
  path: [4, pathOrHeaderParam],
};

function parameter(v: unknown): ProtoWriter {
  const p = obj(v, 'parameter');
  if (p['in'] === 'body') return new ProtoWriter().message(1, bodyParam(p));
  const kind = NON_BODY[String(p['in'])];
  if (!kind) throw new Error(`swagger protobuf: parameter location ${String(p['in'])} is not supported`);
  return new ProtoWriter().message(2, new ProtoWriter().message(kind[0], kind[1](p)));
}

const jsonReference = message({ $ref: str(1), description: str(2) }, undefined, 'reference');
/** ParametersItem / ResponseValue: a `$ref` or the thing itself. */
const refOr = (enc: (v: unknown) => ProtoWriter) => (v: unknown) =>
  obj(v, 'item')['$ref'] !== undefined ? new ProtoWriter().message(2, jsonReference(v)) : new ProtoWriter().message(1, enc(v));

const response = message(
  { description: str(1), schema: (w, v) => w.message(2, new ProtoWriter().message(1, schema(v))) },
  5,
  'response',
);

function responses(v: unknown): ProtoWriter {
  const o = obj(v, 'responses');
  const w = new ProtoWriter();
  for (const [code, r] of Object.entries(o)) {
    if (code.startsWith('x-')) w.message(2, new ProtoWriter().string(1, code).message(2, any(r)));
    else w.message(1, new ProtoWriter().string(1, code).message(2, refOr(response)(r)));
  }
  return w;
}

const operation = message(
  {
    tags: strs(1), summary: str(2), description: str(3), externalDocs: msg(4, externalDocs), operationId: str(5), produces: strs(6),
    consumes: strs(7), parameters: each(8, refOr(parameter)), responses: msg(9, responses), schemes: strs(10), deprecated: bool(11),
  },
  13,
  'operation',
);

const pathItem = message(
  {
    $ref: str(1), get: msg(2, operation), put: msg(3, operation), post: msg(4, operation), delete: msg(5, operation),
    options: msg(6, operation), head: msg(7, operation), patch: msg(8, operation), parameters: each(9, refOr(parameter)),
  },
  10,
  'path item',
);

function paths(v: unknown): ProtoWriter {
  const w = new ProtoWriter();
  for (const [key, item] of Object.entries(obj(v, 'paths'))) {
    if (key.startsWith('x-')) w.message(1, new ProtoWriter().string(1, key).message(2, any(item)));
    else w.message(2, new ProtoWriter().string(1, key).message(2, pathItem(item)));
  }
  return w;
}

const info = message(
  {
    title: str(1), version: str(2), description: str(3), termsOfService: str(4),
    contact: msg(5, message({ name: str(1), url: str(2), email: str(3) }, 4, 'contact')),
    license: msg(6, message({ name: str(1), url: str(2) }, 3, 'license')),
  },
  7,
  'info',
);

const securityRequirement = (v: unknown) =>
  encodeNamed(v, (scopes) => new ProtoWriter().strings(1, list(scopes).map(String)));

const document = message(
  {
    swagger: str(1), info: msg(2, info), host: str(3), basePath: str(4), schemes: strs(5), consumes: strs(6), produces: strs(7),
    paths: msg(8, paths), definitions: (w, v) => w.message(9, encodeNamed(v, schema)),
    parameters: (w, v) => w.message(10, encodeNamed(v, parameter)), responses: (w, v) => w.message(11, encodeNamed(v, response)),
    security: each(12, securityRequirement), tags: each(14, message({ name: str(1), description: str(2), externalDocs: msg(3, externalDocs) }, 4, 'tag')),
    externalDocs: msg(15, externalDocs),
  },
  16,
  'document',
);

/** The gnostic `openapi_v2.Document` bytes of a Swagger 2.0 JSON document. */
export function encodeSwaggerDocument(doc: object): Buffer {
  return document(doc).finish();
}
