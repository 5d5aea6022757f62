/**
 * Request-body decoding with the apiserver's error texts. Order as upstream: syntax (and depth) errors first,
 * reported as an unrecognized object because upstream fails while reading kind/apiVersion; then the schema
 * walk, whose first type error (or a time parse failure) is a 400 `<Kind> in version "<v>" cannot be handled
 * as a <Kind>: …`; unknown/duplicate fields come back as problems for the caller's fieldValidation choice.
 */
import type { Definitions } from '../schema.ts';
import { newBadRequest, type StatusError } from '../errors.ts';
import { compiledStruct, type StructNode } from './compile.ts';
import { DecodeError, isObject, jsonKind, walkStruct, type WalkState } from './convert.ts';
import { checkSyntax } from './jsonsyntax.ts';
import { parseExact, scanFast, type ExactSides } from './jsonscan.ts';
import type { DecodeResult } from './types.ts';
import { parseYAMLBody, YAMLSyntaxError } from './yamlbody.ts';

export type { DecodeResult, FieldValidation } from './types.ts';

const TYPE_META_GO = 'struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }';

/** `<Kind> in version "<version>" cannot be handled as a <Kind>: <message>` (400 BadRequest). */
export function cannotHandle(kind: string, version: string, message: string): StatusError {
  return newBadRequest(`${kind} in version ${JSON.stringify(version)} cannot be handled as a ${kind}: ${message}`);
}

/** The Strict fieldValidation failure: `… cannot be handled as a Event: strict decoding error: p1, p2`. */
export function strictDecodingError(kind: string, version: string, problems: string[]): StatusError {
  return cannotHandle(kind, version, `strict decoding error: ${problems.join(', ')}`);
}

// Upstream's summarizeData: the start of a JSON object as text, anything else as hex.
function summarize(body: Buffer): string {
  if (body.length === 0) return '<empty>';
  const head = body.subarray(0, 30);
  const text = body[0] === 0x7b ? head.toString('utf8') : head.toString('hex');
  return body.length > 30 ? `${text} ...` : text;
}

function unrecognized(sn: StructNode, message: string, body: Buffer): StatusError {
  return newBadRequest(`the object provided is unrecognized (must be of type ${sn.kind}): ${message} (${summarize(body)})`);
}

// Upstream first reads only kind/apiVersion into a small struct; its type errors make the object unrecognized.
function typeMetaError(v: unknown): string | null {
  if (v === null) return null;
  if (!isObject(v)) return `json: cannot unmarshal ${jsonKind(v)} into Go value of type ${TYPE_META_GO}`;
  for (const k of ['apiVersion', 'kind']) {
    const x = v[k];
    if (x !== undefined && x !== null && typeof x !== 'string') return `json: cannot unmarshal ${jsonKind(x)} into Go struct field .${k} of type string`;
  }
  return null;
}

function walkRoot(sn: StructNode, value: unknown, sides: ExactSides | null): DecodeResult {
  const st: WalkState = { problems: [], sides, typeError: null };
  let object: Record<string, unknown>;
  try {
    if (value === null || value === undefined) object = walkStruct(sn, {}, '', '', st);
    else if (!isObject(value)) throw new DecodeError(`json: cannot unmarshal ${jsonKind(value)} into Go value of type v1.${sn.goName}`);
    else object = walkStruct(sn, value, '', '', st);
  } catch (e) {
    if (e instanceof DecodeError) throw cannotHandle(sn.kind, sn.version, e.message);
    throw e;
  }
  if (st.typeError !== null) throw cannotHandle(sn.kind, sn.version, st.typeError);
  return { object, problems: st.problems, strictProblems: st.problems };
}

/**
 * Decodes a request body into the canonical object of `rootDef`. Throws a 400 StatusError for malformed input,
 * too deep nesting (`exceeded max depth`), wrong value types and bad timestamps.
 */
export function decodeBody(body: Buffer, mediaType: 'application/json' | 'application/yaml', defs: Definitions, rootDef: string): DecodeResult {
  const sn = compiledStruct(defs, rootDef);
  if (mediaType === 'application/yaml') return decodeYAML(body, sn);
  const text = body.toString('utf8');
  const flags = scanFast(text);
  let value: unknown;
  let sides: ExactSides | null = null;
  if (flags !== 0) {
    const syntax = checkSyntax(body);
    if (syntax !== null) throw unrecognized(sn, `couldn't get version/kind; json parse error: ${syntax}`, body);
    ({ value, sides } = parseExact(text));
  } else {
    try {
      value = JSON.parse(text);
    } catch {
      const syntax = checkSyntax(body) ?? 'unexpected end of JSON input';
      throw unrecognized(sn, `couldn't get version/kind; json parse error: ${syntax}`, body);
    }
  }
  const tm = typeMetaError(value);
  if (tm !== null) throw unrecognized(sn, `couldn't get version/kind; json parse error: ${tm}`, body);
  return walkRoot(sn, value, sides);
}

function decodeYAML(body: Buffer, sn: StructNode): DecodeResult {
  let parsed;
  try {
    parsed = parseYAMLBody(body.toString('utf8'));
  } catch (e) {
    if (e instanceof YAMLSyntaxError) throw unrecognized(sn, e.message, body);
    throw e;
  }
  const tm = typeMetaError(parsed.value);
  if (tm !== null) throw unrecognized(sn, `couldn't get version/kind; json parse error: ${tm}`, body);
  const r = walkRoot(sn, parsed.value, null);
  if (parsed.duplicates.length === 0) return r;
  return {
    object: r.object,
    problems: [...r.problems, ...parsed.duplicates],
    strictProblems: [...r.problems, `yaml: unmarshal errors:\n  ${parsed.duplicates.join('\n  ')}`],
  };
}

/**
 * Converts an already-parsed value (e.g. a patch result) into the canonical object of `rootDef`: unknown
 * fields become problems, wrong types throw the same 400 as decodeBody. Repeated keys cannot be seen here.
 */
export function convertValue(value: unknown, defs: Definitions, rootDef: string): DecodeResult {
  return walkRoot(compiledStruct(defs, rootDef), value, null);
}
