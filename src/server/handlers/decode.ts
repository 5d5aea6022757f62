/** Request bodies to objects: decoding with fieldValidation, then the group/version/kind and identity checks. */
import type { KubeObject } from '../../apis/meta/v1/types.ts';
import { convertValue, decodeBody, strictDecodingError, type FieldValidation } from '../../apimachinery/codec/decode.ts';
import { decodeEnvelope, PROTOBUF_MEDIA_TYPE } from '../../apimachinery/codec/protobuf.ts';
import { newBadRequest } from '../../apimachinery/errors.ts';
import type { RequestContext } from './context.ts';

/** Versions of the same kind we know of but do not serve at this endpoint (upstream: "does not match"). */
const KNOWN_OTHER_VERSIONS: Record<string, string[]> = {
  Event: ['v1', 'events.cluster.io/v1', 'events.cluster.io/v1beta1', 'events.k8s.io/v1', 'events.k8s.io/v1beta1'],
};

export function decodeObject(ctx: RequestContext, body: Buffer, mediaType: 'application/json' | 'application/yaml' | typeof PROTOBUF_MEDIA_TYPE, fv: FieldValidation): KubeObject {
  const { scope } = ctx;
  let decoded;
  if (mediaType === PROTOBUF_MEDIA_TYPE) {
    // The envelope names the kind; its message gives the rest, which then takes the JSON path's checks.
    const envelope = decodeEnvelope(body);
    const value = { apiVersion: envelope.apiVersion, kind: envelope.kind, ...scope.protobuf!.decode(envelope.raw) };
    checkKind(ctx, value);
    decoded = convertValue(value, scope.defs, scope.definition);
  } else {
    decoded = decodeBody(body, mediaType, scope.defs, scope.definition);
    checkKind(ctx, decoded.object);
  }
  const { object, problems, strictProblems } = decoded;
  if (problems.length) {
    if (fv === 'Strict') throw strictDecodingError(scope.kind, scope.version, strictProblems);
    if (fv === 'Warn') ctx.warnings.push(...problems);
  }
  const obj = object as KubeObject;
  obj.kind = scope.kind;
  obj.apiVersion = scope.groupVersion;
  obj.metadata ??= {};
  return obj;
}

function checkKind(ctx: RequestContext, object: Record<string, unknown>): void {
  const { scope } = ctx;
  const apiVersion = typeof object.apiVersion === 'string' ? object.apiVersion : '';
  const kind = typeof object.kind === 'string' ? object.kind : '';
  if ((apiVersion === '' || apiVersion === scope.groupVersion) && (kind === '' || kind === scope.kind)) return;
  const effectiveKind = kind || scope.kind;
  if (effectiveKind === scope.kind && KNOWN_OTHER_VERSIONS[scope.kind]?.includes(apiVersion)) {
    throw newBadRequest(`the API version in the data (${apiVersion}) does not match the expected API version (${scope.groupVersion})`);
  }
  const gv = apiVersion || scope.groupVersion;
  const version = gv.includes('/') ? gv.slice(gv.indexOf('/') + 1) : gv;
  throw newBadRequest(
    `${effectiveKind} in version "${version}" cannot be handled as a ${scope.kind}: no kind "${effectiveKind}" is registered for version "${gv}" in scheme "pkg/api/legacyscheme/scheme.go:30"`,
  );
}
