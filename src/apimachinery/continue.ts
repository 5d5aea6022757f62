/**
 * List continue tokens, byte-compatible with apiserver `pkg/storage/continue.go`: base64url without padding of
 * `{"v":"meta.k8s.io/v1","rv":<int64>,"start":"<key relative to the list prefix>"}`. Decoding follows Go's
 * base64 and encoding/json behaviour (lenient about newlines, case-insensitive keys, first type error wins) so that
 * every rejection carries upstream's text.
 */
import { newBadRequest } from './errors.ts';
import type { StatusError } from './errors.ts';
import { parseGoJson } from './gojson-decode.ts';
import type { GoJsonValue } from './gojson-decode.ts';
import { goParseInt } from './strconv.ts';

const API_VERSION = 'meta.k8s.io/v1';
const INVALID_KEY = 'continue key is not valid';

/** Go's json.Marshal escapes these beyond what JSON.stringify does. */
const GO_JSON_EXTRA_ESCAPES: Readonly<Record<string, string>> = {
  '<': '\\u003c',
  '>': '\\u003e',
  '&': '\\u0026',
  '\u2028': '\\u2028',
  '\u2029': '\\u2029',
};
const goJsonString = (s: string): string => JSON.stringify(s).replace(/[<>&\u2028\u2029]/g, (c) => GO_JSON_EXTRA_ESCAPES[c]!);

/**
 * Encodes a continue token. `start` is the storage key of the next item relative to the list prefix, i.e. the last
 * returned key plus "\u0000" (`<name>\u0000` in a namespace, `<ns>/<name>\u0000` across namespaces); `rv` is the
 * snapshot's resource version, or -1 for "continue from the latest state" (410 Expired answers).
 */
export function encodeContinue(start: string, rv: number): string {
  const json = `{"v":"${API_VERSION}","rv":${Math.trunc(rv)},"start":${goJsonString(start)}}`;
  return Buffer.from(json, 'utf8').toString('base64url');
}

const B64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const DECODE_MAP = new Int16Array(256).fill(-1);
for (let i = 0; i < B64URL.length; i++) DECODE_MAP[B64URL.charCodeAt(i)] = i;

/**
 * Go's base64.RawURLEncoding.DecodeString: newlines are skipped, anything else outside the alphabet (padding
 * included) fails as `illegal base64 data at input byte N`. Hand-written because Buffer's decoder silently ignores
 * invalid characters.
 */
function goBase64RawURLDecode(src: Uint8Array): Uint8Array {
  const out: number[] = [];
  let si = 0;
  for (;;) {
    const dbuf = [0, 0, 0, 0];
    let dlen = 4;
    for (let j = 0; j < 4; j++) {
      if (si === src.length) {
        if (j === 0) return Uint8Array.from(out);
        if (j === 1) throw new Error(`illegal base64 data at input byte ${si - j}`);
        dlen = j;
        break;
      }
      const c = src[si++]!;
      const v = DECODE_MAP[c]!;
      if (v >= 0) dbuf[j] = v;
      else if (c === 0x0a || c === 0x0d) j--;
      else throw new Error(`illegal base64 data at input byte ${si - 1}`);
    }
    const val = (dbuf[0]! << 18) | (dbuf[1]! << 12) | (dbuf[2]! << 6) | dbuf[3]!;
    const bytes = [(val >> 16) & 0xff, (val >> 8) & 0xff, val & 0xff];
    out.push(...bytes.slice(0, dlen - 1));
    if (dlen < 4) return Uint8Array.from(out);
  }
}

/** Go's case-insensitive field match (`ſ` and the Kelvin sign fold too). */
const foldKey = (k: string): string => k.replace(/\u017f/g, 's').replace(/\u212a/g, 'k').toLowerCase();

interface RawToken {
  v: string;
  rv: number;
  start: string;
}

/** json.Unmarshal into upstream's continueToken struct, reporting the first type mismatch as Go does. */
function unmarshalToken(doc: GoJsonValue): RawToken {
  const t: RawToken = { v: '', rv: 0, start: '' };
  if (doc.kind === 'null') return t;
  if (doc.kind !== 'object') throw new Error(`json: cannot unmarshal ${doc.kind} into Go value of type storage.continueToken`);
  let firstError: string | undefined;
  const typeError = (value: string, field: string, type: string): void => {
    firstError ??= `json: cannot unmarshal ${value} into Go struct field continueToken.${field} of type ${type}`;
  };
  for (const [rawKey, value] of doc.entries) {
    const field = ['v', 'rv', 'start'].includes(rawKey) ? rawKey : foldKey(rawKey);
    if (value.kind === 'null') continue;
    if (field === 'v' || field === 'start') {
      if (value.kind === 'string') t[field] = value.value;
      else typeError(value.kind, field, 'string');
    } else if (field === 'rv') {
      if (value.kind !== 'number') {
        typeError(value.kind, 'rv', 'int64');
        continue;
      }
      try {
        t.rv = Number(goParseInt(value.literal));
      } catch {
        typeError(`number ${value.literal}`, 'rv', 'int64');
      }
    }
  }
  if (firstError !== undefined) throw new Error(firstError);
  return t;
}

/** Go's path.Clean for a rooted path. */
function cleanRooted(p: string): string {
  const out: string[] = [];
  for (const seg of p.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') out.pop();
    else out.push(seg);
  }
  return '/' + out.join('/');
}

const BASE64URL_ONLY = /^[A-Za-z0-9_-]+$/;
/**
 * A token exactly as encodeContinue writes it for a key of printable ASCII (every key this server issues: names and
 * namespaces are DNS names), with an rv that is a nonzero int64 well inside a double's exact range.
 */
const CANONICAL = /^\{"v":"meta\.k8s\.io\/v1","rv":(-?[1-9][0-9]{0,14}),"start":"((?:[\x20\x21\x23-\x5b\x5d-\x7e]|\\u0000)*)"\}$/;

/**
 * The token this server issued, read without the Go-faithful decoders (a paged walk decodes one per page), or
 * undefined for anything else, which then takes the full path. Where it answers, it answers what the full path
 * would: Buffer's base64url decoder agrees with Go's on the alphabet at lengths other than 4k+1, and on this JSON
 * shape Go's decoder has nothing to be lenient or strict about.
 */
function canonicalToken(token: string): RawToken | undefined {
  if (token.length % 4 === 1 || !BASE64URL_ONLY.test(token)) return undefined;
  const m = CANONICAL.exec(Buffer.from(token, 'base64url').toString('latin1'));
  if (!m) return undefined;
  return { v: API_VERSION, rv: Number(m[1]), start: m[2]!.replaceAll('\\u0000', '\0') };
}

/** The reason text of storage.DecodeContinue, without the `invalid continue token: ` prefix. */
function decodeReason(token: string): { rv: number; start: string } | string {
  let t: RawToken | undefined = canonicalToken(token);
  if (!t) {
    try {
      t = unmarshalToken(parseGoJson(goBase64RawURLDecode(Buffer.from(token, 'utf8'))));
    } catch (e) {
      // base64, JSON syntax and JSON type errors alike (GoJsonSyntaxError is one of them)
      if (e instanceof Error) return `${INVALID_KEY}: ${e.message}`;
      throw e;
    }
  }
  if (t.v !== API_VERSION) return `${INVALID_KEY}: server does not recognize this encoded version ${t.v}`;
  if (t.rv === 0) return `${INVALID_KEY}: incorrect encoded start resourceVersion (version meta.k8s.io/v1)`;
  if (t.start === '') return `${INVALID_KEY}: encoded start key empty (version meta.k8s.io/v1)`;
  // path traversal defence: the start key must already be in canonical form
  const key = t.start.startsWith('/') ? t.start : `/${t.start}`;
  const cleaned = cleanRooted(key);
  if (cleaned !== key) return `${INVALID_KEY}: ${t.start}`;
  return { rv: t.rv, start: cleaned.slice(1) };
}

/**
 * Decodes a continue token into the snapshot resource version (> 0: that snapshot; < 0: the latest state) and the
 * start key relative to the list prefix. Throws 400 BadRequest `invalid continue token: <reason>` with upstream's
 * reasons (bad base64 / JSON, unknown `v`, `rv` 0, empty or non-canonical `start`).
 */
export function decodeContinue(token: string): { rv: number; start: string } {
  // The list options decode a request's token to validate it and the store decodes it again to serve it: the
  // second decode of the same string is answered from here.
  if (last && token === last.token) return { rv: last.rv, start: last.start };
  const r = decodeReason(token);
  if (typeof r === 'string') throw invalidContinue(r);
  last = { token, ...r };
  return { rv: r.rv, start: r.start };
}

let last: { token: string; rv: number; start: string } | undefined;

function invalidContinue(reason: string): StatusError {
  return newBadRequest(`invalid continue token: ${reason}`);
}
