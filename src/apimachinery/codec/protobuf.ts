/**
 * Kubernetes' protobuf wire format for request bodies (`application/vnd.kubernetes.protobuf`, apimachinery
 * `runtime/serializer/protobuf`): the 4-byte magic `k8s\0`, then a `runtime.Unknown` whose `typeMeta` names the
 * apiVersion and kind and whose `raw` is the object's generated.proto message. Only decoding is done here: clients
 * that send protobuf (kubectl 1.32+ for some typed requests) accept JSON answers.
 *
 * A kind that accepts protobuf bodies supplies its message definitions (`.proto` text) and the name of its message;
 * `ProtobufKind` turns the message into the object's JSON form, which then takes the JSON path's decoding (schema,
 * unknown fields, kind checks). The meta/v1 messages every object embeds are defined here, with field numbers of
 * k8s.io/apimachinery's generated.proto.
 */
import protobuf from 'protobufjs';
import { newBadRequest } from '../errors.ts';
import { formatTime } from './time.ts';

export const PROTOBUF_MEDIA_TYPE = 'application/vnd.kubernetes.protobuf';

const MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00]);

/** meta/v1 and runtime messages, as far as request objects use them. */
const META_PROTO = `
syntax = "proto2";
package k8s.io.apimachinery.pkg.apis.meta.v1;
message Time { optional int64 seconds = 1; optional int32 nanos = 2; }
message FieldsV1 { optional bytes Raw = 1; }
message ManagedFieldsEntry {
  optional string manager = 1; optional string operation = 2; optional string apiVersion = 3; optional Time time = 4;
  optional string fieldsType = 6; optional FieldsV1 fieldsV1 = 7; optional string subresource = 8;
}
message OwnerReference {
  optional string apiVersion = 5; optional string kind = 1; optional string name = 3; optional string uid = 4;
  optional bool controller = 6; optional bool blockOwnerDeletion = 7;
}
message ObjectMeta {
  optional string name = 1; optional string generateName = 2; optional string namespace = 3; optional string selfLink = 4;
  optional string uid = 5; optional string resourceVersion = 6; optional int64 generation = 7;
  optional Time creationTimestamp = 8; optional Time deletionTimestamp = 9; optional int64 deletionGracePeriodSeconds = 10;
  map<string, string> labels = 11; map<string, string> annotations = 12; repeated OwnerReference ownerReferences = 13;
  repeated string finalizers = 14; repeated ManagedFieldsEntry managedFields = 17;
}
message LabelSelectorRequirement { optional string key = 1; optional string operator = 2; repeated string values = 3; }
message LabelSelector { map<string, string> matchLabels = 1; repeated LabelSelectorRequirement matchExpressions = 2; }
`;

const RUNTIME_PROTO = `
syntax = "proto2";
package k8s.io.apimachinery.pkg.runtime;
message TypeMeta { optional string apiVersion = 1; optional string kind = 2; }
message Unknown { optional TypeMeta typeMeta = 1; optional bytes raw = 2; optional string contentEncoding = 3; optional string contentType = 4; }
`;

const META_PACKAGE = 'k8s.io.apimachinery.pkg.apis.meta.v1';

/** A fresh root holding the meta/v1 and runtime messages, for a kind's own messages to be parsed into. */
function metaRoot(): protobuf.Root {
  const root = new protobuf.Root();
  protobuf.parse(META_PROTO, root, { keepCase: true });
  protobuf.parse(RUNTIME_PROTO, root, { keepCase: true });
  return root;
}

const UNKNOWN = metaRoot().lookupType('k8s.io.apimachinery.pkg.runtime.Unknown');

export interface ProtobufEnvelope {
  apiVersion: string;
  kind: string;
  raw: Buffer;
}

/** The envelope of a protobuf body; a 400 for one without the magic or that does not parse. */
export function decodeEnvelope(body: Buffer): ProtobufEnvelope {
  if (body.length < MAGIC.length || !body.subarray(0, MAGIC.length).equals(MAGIC)) {
    throw newBadRequest('provided object is not a protobuf message: missing the k8s\\x00 prefix');
  }
  let u: { typeMeta?: { apiVersion?: string; kind?: string }; raw?: Uint8Array; contentEncoding?: string };
  try {
    u = UNKNOWN.toObject(UNKNOWN.decode(body.subarray(MAGIC.length)), { defaults: false }) as typeof u;
  } catch (e) {
    throw newBadRequest(`unable to decode protobuf body: ${(e as Error).message}`);
  }
  if (u.contentEncoding) throw newBadRequest(`unsupported protobuf content encoding ${JSON.stringify(u.contentEncoding)}`);
  return { apiVersion: u.typeMeta?.apiVersion ?? '', kind: u.typeMeta?.kind ?? '', raw: Buffer.from(u.raw ?? []) };
}

/**
 * One kind's message, decoded into its JSON form. `proto` holds the kind's messages (referring to meta/v1 types by
 * their full names, `.k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta`); `adapt` turns wire shapes that JSON writes
 * differently (a wrapper message such as ExtraValue around a list) into their JSON form, after the generic steps.
 */
export class ProtobufKind {
  readonly #type: protobuf.Type;
  readonly #adapt: ((obj: Record<string, unknown>) => void) | undefined;

  constructor(proto: string, message: string, adapt?: (obj: Record<string, unknown>) => void) {
    const root = metaRoot();
    protobuf.parse(proto, root, { keepCase: true });
    this.#type = root.lookupType(message);
    this.#adapt = adapt;
  }

  /** The object `raw` encodes, as JSON would carry it (empty optional fields left out, as Go's omitempty does). */
  decode(raw: Buffer): Record<string, unknown> {
    let msg: protobuf.Message;
    try {
      msg = this.#type.decode(raw);
    } catch (e) {
      throw newBadRequest(`unable to decode protobuf body: ${(e as Error).message}`);
    }
    const obj = toJSONForm(this.#type, this.#type.toObject(msg, { defaults: false, longs: Number, bytes: Buffer, arrays: false, objects: false })) as Record<string, unknown>;
    this.#adapt?.(obj);
    return obj;
  }
}

/**
 * A decoded message → the JSON form: meta/v1 Time as an RFC 3339 string (the zero time as absent), FieldsV1 as the
 * JSON it holds, and the empty values proto2 carries for unset Go fields (`""`, 0, empty lists and maps) left out.
 */
function toJSONForm(type: protobuf.Type, value: Record<string, unknown>): unknown {
  if (type.fullName === `.${META_PACKAGE}.Time`) {
    const seconds = Number(value.seconds ?? 0);
    const nanos = Number(value.nanos ?? 0);
    return seconds === 0 && nanos === 0 ? undefined : formatTime(seconds * 1000 + Math.floor(nanos / 1e6));
  }
  if (type.fullName === `.${META_PACKAGE}.FieldsV1`) {
    const raw = value.Raw as Buffer | undefined;
    if (!raw || raw.length === 0) return undefined;
    try {
      return JSON.parse(raw.toString('utf8'));
    } catch {
      throw newBadRequest('unable to decode protobuf body: FieldsV1 does not hold JSON');
    }
  }
  const out: Record<string, unknown> = {};
  for (const field of type.fieldsArray) {
    const v = value[field.name];
    if (v === undefined || v === null) continue;
    const resolved = field.resolve();
    const element = resolved.resolvedType instanceof protobuf.Type ? resolved.resolvedType : undefined;
    const convert = (x: unknown) => (element ? toJSONForm(element, x as Record<string, unknown>) : x);
    let j: unknown;
    if (field.map) {
      const m: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v as Record<string, unknown>)) m[k] = convert(x);
      j = Object.keys(m).length ? m : undefined;
    } else if (field.repeated) {
      const list = (v as unknown[]).map(convert);
      j = list.length ? list : undefined;
    } else {
      j = convert(v);
      if (j === '' || j === 0) j = undefined;
    }
    if (j !== undefined) out[field.name] = j;
  }
  return out;
}
