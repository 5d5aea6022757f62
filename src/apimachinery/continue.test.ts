import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { StatusError } from './errors.ts';
import { decodeContinue, encodeContinue } from './continue.ts';

const b64 = (json: string): string => Buffer.from(json, 'utf8').toString('base64url');
const token = (v: unknown, rv: unknown, start: unknown): string => b64(JSON.stringify({ v, rv, start }));

describe('encodeContinue', () => {
  it('is base64url without padding of Go JSON with fields v, rv, start in that order', () => {
    const t = encodeContinue('ns/name\u0000', 42);
    assert.equal(t, b64('{"v":"meta.k8s.io/v1","rv":42,"start":"ns/name\\u0000"}'));
    assert.doesNotMatch(t, /[=+/]/);
  });
  it('escapes <, >, & and U+2028/U+2029 as Go json.Marshal does', () => {
    const json = Buffer.from(encodeContinue('a<b>&c\u2028\u0000', 7), 'base64url').toString('utf8');
    assert.equal(json, '{"v":"meta.k8s.io/v1","rv":7,"start":"a\\u003cb\\u003e\\u0026c\\u2028\\u0000"}');
  });
  it('encodes rv -1 (continue from the latest state)', () => {
    assert.equal(Buffer.from(encodeContinue('x\u0000', -1), 'base64url').toString(), '{"v":"meta.k8s.io/v1","rv":-1,"start":"x\\u0000"}');
  });
});

describe('decodeContinue round-trips', () => {
  const cases: [string, number][] = [
    ['name\u0000', 1],
    ['ns/name\u0000', 123456789],
    ['ns/with spaces & <html>\u0000', 5],
    ['ünï/cødé\u0000', 9],
    ['x\u0000', -1],
  ];
  for (const [start, rv] of cases) {
    it(JSON.stringify(start), () => assert.deepEqual(decodeContinue(encodeContinue(start, rv)), { rv, start }));
  }
  it('accepts Go-compatible variations: case-insensitive keys, unknown keys, null, newlines in base64', () => {
    assert.deepEqual(decodeContinue(b64('{"V":"meta.k8s.io/v1","RV":3,"Start":"a","extra":[1,{"x":null}]}')), { rv: 3, start: 'a' });
    assert.deepEqual(decodeContinue(b64('{"v":"meta.k8s.io/v1","rv":3,"start":"a","start":null}')), { rv: 3, start: 'a' });
    const t = encodeContinue('abc\u0000', 2);
    assert.deepEqual(decodeContinue(`${t.slice(0, 5)}\n${t.slice(5)}\r\n`), { rv: 2, start: 'abc\u0000' });
  });
  it('strips a leading slash and keeps the root key', () => {
    assert.deepEqual(decodeContinue(token('meta.k8s.io/v1', 1, '/abc')), { rv: 1, start: 'abc' });
    assert.deepEqual(decodeContinue(token('meta.k8s.io/v1', 1, '/')), { rv: 1, start: '' });
  });
});

describe('decodeContinue errors: 400 `invalid continue token: ...`', () => {
  const K = 'invalid continue token: continue key is not valid';
  const cases: [string, string, string][] = [
    ['bad base64 character', '!!!', `${K}: illegal base64 data at input byte 0`],
    ['one trailing character', 'abcde', `${K}: illegal base64 data at input byte 4`],
    ['single character', 'a', `${K}: illegal base64 data at input byte 0`],
    ['not JSON', 'abc', `${K}: invalid character 'i' looking for beginning of value`],
    ['not JSON, high byte', 'invalid', `${K}: invalid character '\\u008a' looking for beginning of value`],
    ['empty', '', `${K}: unexpected end of JSON input`],
    ['truncated object', b64('{"v":"meta.k8s.io/v1"'), `${K}: unexpected end of JSON input`],
    ['truncated string', b64('{"v":"meta'), `${K}: unexpected end of JSON input`],
    ['truncated number', b64('{"rv":-'), `${K}: invalid character ' ' in numeric literal`],
    ['truncated literal', b64('{"v":tr'), `${K}: invalid character ' ' in literal true (expecting 'u')`],
    ['bad literal', b64('[nul]'), `${K}: invalid character ']' in literal null (expecting 'l')`],
    ['bad key', b64('{v:1}'), `${K}: invalid character 'v' looking for beginning of object key string`],
    ['trailing comma in object', b64('{"v":"x",}'), `${K}: invalid character '}' looking for beginning of object key string`],
    ['missing colon', b64('{"v" "x"}'), `${K}: invalid character '"' after object key`],
    ['missing comma', b64('{"v":"x" "rv":1}'), `${K}: invalid character '"' after object key:value pair`],
    ['bad array', b64('[1 2]'), `${K}: invalid character '2' after array element`],
    ['trailing comma in array', b64('[1,]'), `${K}: invalid character ']' looking for beginning of value`],
    ['trailing data', b64('{} x'), `${K}: invalid character 'x' after top-level value`],
    ['leading zero', b64('01'), `${K}: invalid character '1' after top-level value`],
    ['bad fraction', b64('1.x'), `${K}: invalid character 'x' after decimal point in numeric literal`],
    ['bad exponent', b64('1e+'), `${K}: invalid character ' ' in exponent of numeric literal`],
    ['control character in string', b64('{"start":"a\u0000"}'), `${K}: invalid character '\\x00' in string literal`],
    ['bad escape', b64('{"start":"\\q"}'), `${K}: invalid character 'q' in string escape code`],
    ['bad unicode escape', b64('{"start":"\\u00zz"}'), `${K}: invalid character 'z' in \\u hexadecimal character escape`],
    ['single quote', b64("'"), `${K}: invalid character '\\'' looking for beginning of value`],
    ['top-level array', b64('[]'), `${K}: json: cannot unmarshal array into Go value of type storage.continueToken`],
    ['top-level string', b64('"x"'), `${K}: json: cannot unmarshal string into Go value of type storage.continueToken`],
    ['top-level number', b64('1'), `${K}: json: cannot unmarshal number into Go value of type storage.continueToken`],
    ['rv as string', token('meta.k8s.io/v1', '5', 'a'), `${K}: json: cannot unmarshal string into Go struct field continueToken.rv of type int64`],
    ['rv fractional', b64('{"v":"meta.k8s.io/v1","rv":1.5,"start":"a"}'), `${K}: json: cannot unmarshal number 1.5 into Go struct field continueToken.rv of type int64`],
    ['rv too large', b64('{"rv":9223372036854775808}'), `${K}: json: cannot unmarshal number 9223372036854775808 into Go struct field continueToken.rv of type int64`],
    ['v as number, first error wins', b64('{"v":1,"rv":"x"}'), `${K}: json: cannot unmarshal number into Go struct field continueToken.v of type string`],
    ['start as bool', token('meta.k8s.io/v1', 1, true), `${K}: json: cannot unmarshal bool into Go struct field continueToken.start of type string`],
    ['start as object', token('meta.k8s.io/v1', 1, {}), `${K}: json: cannot unmarshal object into Go struct field continueToken.start of type string`],
    ['null document', b64('null'), `${K}: server does not recognize this encoded version `],
    ['empty version', token('', 1, 'key'), `${K}: server does not recognize this encoded version `],
    ['other version', token('v1', 1, 'key'), `${K}: server does not recognize this encoded version v1`],
    ['rv 0', token('meta.k8s.io/v1', 0, 'key'), `${K}: incorrect encoded start resourceVersion (version meta.k8s.io/v1)`],
    ['rv missing', b64('{"v":"meta.k8s.io/v1","start":"key"}'), `${K}: incorrect encoded start resourceVersion (version meta.k8s.io/v1)`],
    ['start empty', token('meta.k8s.io/v1', 1, ''), `${K}: encoded start key empty (version meta.k8s.io/v1)`],
    ['parent', token('meta.k8s.io/v1', 1, '../key'), `${K}: ../key`],
    ['local', token('meta.k8s.io/v1', 1, './key'), `${K}: ./key`],
    ['double parent', token('meta.k8s.io/v1', 1, './../key'), `${K}: ./../key`],
    ['after parent', token('meta.k8s.io/v1', 1, 'key/../..'), `${K}: key/../..`],
    ['double slash', token('meta.k8s.io/v1', 1, 'a//b'), `${K}: a//b`],
    ['trailing slash', token('meta.k8s.io/v1', 1, 'a/'), `${K}: a/`],
  ];
  for (const [name, input, want] of cases) {
    it(name, () => {
      assert.throws(
        () => decodeContinue(input),
        (e: unknown) => e instanceof StatusError && e.code === 400 && e.reason === 'BadRequest' && e.message === want,
      );
    });
  }
  it('padding is an illegal character', () => {
    const t = b64('{"v":"meta.k8s.io/v1","rv":1,"start":"a"}'); // 41 bytes: padded base64 would end in one '='
    assert.equal(t.length % 4, 3);
    assert.throws(() => decodeContinue(`${t}=`), { message: `${K}: illegal base64 data at input byte ${t.length}` });
  });
});

describe('decodeContinue: tokens as this server issues them take a short path with the same answers', () => {
  // A newline makes a token take the Go-faithful path (Go's base64 skips newlines): both must agree.
  const viaFullPath = (t: string): string => `${t.slice(0, 4)}\n${t.slice(4)}`;
  const outcome = (t: string): unknown => {
    try {
      return decodeContinue(t);
    } catch (e) {
      return e instanceof StatusError ? `${e.code} ${e.message}` : e;
    }
  };
  const keys = ['e-1\u0000', 'ns/e-99999\u0000', 'a\u0000b\u0000', '', 'x', '../x\u0000', 'a//b', 'a/', '/abc', '/', 'sp ace!#$%\'()*+,-.:;=?@[]^_`{|}~\u0000', 'q"uote', 'back\\slash', 'ü', '<tag>&'];
  const rvs = [1, 42, -1, 0, -5, 999_999_999_999_999, 1_000_000_000_000_000, 9_007_199_254_740_993];
  for (const start of keys) {
    for (const rv of rvs) {
      const t = encodeContinue(start, rv);
      it(`${JSON.stringify(start)} at rv ${rv}`, () => assert.deepEqual(outcome(t), outcome(viaFullPath(t))));
    }
  }
  it('agrees on hand-made near-canonical tokens', () => {
    const near = [
      '{"v":"meta.k8s.io/v1","rv":01,"start":"a"}',
      '{"v":"meta.k8s.io/v1","rv":-0,"start":"a"}',
      '{"v":"meta.k8s.io/v1","rv":1,"start":"a\\u0001"}',
      '{"v":"meta.k8s.io/v1","rv":1,"start":"a\\/b"}',
      '{"v":"meta.k8s.io/v1", "rv":1,"start":"a"}',
      '{"v":"meta.k8s.io/v2","rv":1,"start":"a"}',
      '{"v":"meta.k8s.io/v1","rv":1,"start":"a"} ',
    ];
    for (const json of near) {
      const t = b64(json);
      assert.deepEqual(outcome(t), outcome(viaFullPath(t)), json);
    }
  });
  it('answers a repeated token again, and never from an earlier token', () => {
    const a = encodeContinue('a\u0000', 3);
    const first = decodeContinue(a);
    first.start = 'changed by the caller';
    assert.deepEqual(decodeContinue(a), { rv: 3, start: 'a\u0000' });
    assert.deepEqual(decodeContinue(encodeContinue('b\u0000', 4)), { rv: 4, start: 'b\u0000' });
    assert.throws(() => decodeContinue(''), { message: 'invalid continue token: continue key is not valid: unexpected end of JSON input' });
  });
});
