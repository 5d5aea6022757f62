import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CELUserInfo, compileClaimsExpression, compileUserExpression, evaluateClaims, evaluateUser } from './authentication.ts';
import { COST_EXCEEDED_MESSAGE } from './cost.ts';

const claims = {
  iss: 'https://issuer.example.com:8443/tenant?x=1&x=2&y=a+b',
  sub: 'alice',
  aud: ['core', 'other'],
  email: 'Alice@Example.com',
  email_verified: true,
  groups: ['b', 'a'],
  n: 3,
  'weird.key': 'w',
};

function run(expression: string, c: Record<string, unknown> = claims): unknown {
  const r = compileClaimsExpression(expression, 'any');
  assert.equal(r.error, undefined, `${expression}: ${r.error}`);
  return evaluateClaims(r.compiled!, c);
}

test('cel: optional types and the claims variable as upstream exposes it', () => {
  assert.equal(run('claims.?email_verified.orValue(false) == true'), true);
  assert.equal(run('claims.?missing.orValue("none")'), 'none');
  assert.equal(run('claims[?"missing"].hasValue()'), false);
  assert.equal(run('claims["weird.key"]'), 'w');
  assert.equal(run('has(claims.email) ? claims.email : claims.sub'), 'Alice@Example.com');
  assert.deepEqual(run('claims.groups.map(g, "oidc:" + g)'), ['oidc:b', 'oidc:a']);
  // JSON numbers are doubles, as upstream decodes claims with encoding/json.
  assert.equal(run('claims.n == 3.0'), true);
  assert.equal(run('int(claims.n) + 1'), 4n);
});

test('cel: strings, regex and lists libraries', () => {
  assert.equal(run('claims.email.lowerAscii()'), 'alice@example.com');
  assert.equal(run('claims.email.upperAscii().split("@")[1]'), 'EXAMPLE.COM');
  assert.equal(run('"a-b-c".replace("-", "_")'), 'a_b_c');
  assert.equal(run('"a-b-c".replace("-", "_", 1)'), 'a_b-c');
  assert.equal(run('"abc".charAt(1)'), 'b');
  assert.equal(run('"abc".reverse()'), 'cba');
  assert.equal(run('"  x ".trim()'), 'x');
  assert.equal(run('["a", "b"].join("," )'), 'a,b');
  assert.equal(run('"hello".substring(1, 3)'), 'el');
  assert.equal(run('strings.quote("a\\"b")'), '"a\\"b"');
  assert.equal(run('"abc 123 def 456".find("[0-9]+")'), '123');
  assert.deepEqual(run('"abc 123 def 456".findAll("[0-9]+")'), ['123', '456']);
  assert.deepEqual(run('"abc 123 def 456".findAll("[0-9]+", 1)'), ['123']);
  assert.equal(run('[1, 2, 3].isSorted()'), true);
  assert.equal(run('claims.groups.isSorted()'), false);
  assert.equal(run('[1, 2, 3].sum()'), 6n);
  assert.equal(run('[1, 5, 3].max()'), 5n);
  assert.equal(run('claims.groups.min()'), 'a');
  assert.equal(run('claims.groups.indexOf("a")'), 1n);
  assert.equal(run('["a", "b", "a"].lastIndexOf("a")'), 2n);
  assert.deepEqual(run('claims.groups.sort()'), ['a', 'b']);
  assert.deepEqual(run('[1, 1, 2].distinct()'), [1n, 2n]);
  assert.deepEqual(run('[[1], [2, 3]].flatten()'), [1n, 2n, 3n]);
  assert.deepEqual(run('[1, 2, 3].slice(1, 3)'), [2n, 3n]);
  assert.deepEqual(run('lists.range(3)'), [0n, 1n, 2n]);
});

test('cel: sets and URLs', () => {
  assert.equal(run('sets.contains(claims.aud, ["core"])'), true);
  assert.equal(run('sets.equivalent(claims.aud, ["other", "core"])'), true);
  assert.equal(run('sets.equivalent(claims.aud, ["core"])'), false);
  assert.equal(run('sets.intersects(claims.aud, ["x", "core"])'), true);
  assert.equal(run('url(claims.iss).getScheme()'), 'https');
  assert.equal(run('url(claims.iss).getHost()'), 'issuer.example.com:8443');
  assert.equal(run('url(claims.iss).getHostname()'), 'issuer.example.com');
  assert.equal(run('url(claims.iss).getPort()'), '8443');
  assert.equal(run('url(claims.iss).getEscapedPath()'), '/tenant');
  assert.deepEqual(run('url(claims.iss).getQuery()'), { x: ['1', '2'], y: ['a b'] });
  assert.equal(run('url("https://[::1]:80/").getHostname()'), '::1');
  assert.equal(run('isURL(claims.iss)'), true);
  assert.equal(run('isURL("not a url")'), false);
  assert.throws(() => run('url("relative/path")'), /URL parse error during conversion from string/);
});

test('cel: validation rules must be statically bool; user rules see the user', () => {
  assert.equal(compileClaimsExpression('claims.email_verified', 'bool').error, 'must evaluate to bool');
  assert.equal(compileClaimsExpression('claims.email_verified == true', 'bool').error, undefined);
  assert.match(compileClaimsExpression('claims.', 'bool').error!, /^compilation failed: ERROR: <input>:1:8: .*\n \| claims\.\n \| \.\.\.\.\.\.\.\^$/);
  const rule = compileUserExpression('!user.username.startsWith("system:") && user.groups.all(g, g != "x") && !("k" in user.extra) && user.uid == ""');
  assert.equal(rule.error, undefined);
  assert.equal(evaluateUser(rule.compiled!, new CELUserInfo('alice', '', ['a'], {})), true);
  assert.equal(evaluateUser(rule.compiled!, new CELUserInfo('system:admin', '', ['a'], {})), false);
  assert.match(compileUserExpression('user.nope == 1').error!, /^compilation failed: /);
});

test('cel: each evaluation has a cost budget, and a runaway expression stops with cel-go\'s message', () => {
  const l = Array.from({ length: 2000 }, (_, i) => i);
  const nested = compileClaimsExpression('claims.l.all(x, claims.l.all(y, x == y || true))', 'bool').compiled!;
  const started = Date.now();
  assert.throws(() => evaluateClaims(nested, { l }), { message: COST_EXCEEDED_MESSAGE });
  assert.ok(Date.now() - started < 2000, 'stops early');
  // exists() swallows errors of single elements under CEL semantics; the budget still ends the evaluation.
  const swallowing = compileClaimsExpression('claims.l.exists(x, claims.l.all(y, y >= 0) && x < 0)', 'bool').compiled!;
  assert.throws(() => evaluateClaims(swallowing, { l }), { message: COST_EXCEEDED_MESSAGE });
  assert.equal(evaluateClaims(nested, { l: [1, 2] }), true, 'the budget is per evaluation');
  assert.throws(() => evaluateClaims(compileClaimsExpression('claims.l.all(x, true)', 'bool').compiled!, { l }, 100), { message: COST_EXCEEDED_MESSAGE });
});

test('cel: escaped claim names reach claims that are not identifiers, at any depth and in user.extra', () => {
  const c = { 'foo.bar': 'dot', 'a-b': 'dash', 'x/y': 'slash', a__b: 'under', namespace: 'ns', nested: [{ 'k.v': 1 }] };
  assert.equal(run('claims.foo__dot__bar', c), 'dot');
  assert.equal(run('claims.a__dash__b + claims.x__slash__y + claims.a__underscores__b', c), 'dashslashunder');
  assert.equal(run('claims.__namespace__', c), 'ns');
  assert.equal(run('claims.nested[0].k__dot__v', c), 1);
  assert.equal(run('has(claims.foo__dot__bar) && size(claims) == 6', c), true);
  assert.deepEqual(run('claims.map(k, k).filter(k, k.contains("."))', c), ['foo.bar']);
  const rule = compileUserExpression('user.extra.example__dot__org__slash__team[0] == "a"');
  assert.equal(evaluateUser(rule.compiled!, new CELUserInfo('u', '', [], { 'example.org/team': ['a'] })), true);
});

test('cel: two-variable comprehensions over lists and maps, metered like the others', () => {
  const c = { l: ['a', 'b', 'c'], m: { x: 1, y: 2 } };
  assert.equal(run('claims.l.all(i, v, i < 3 && v != "")', c), true);
  assert.equal(run('claims.m.exists(k, v, k == "y" && v == 2.0)', c), true);
  assert.equal(run('claims.l.existsOne(i, v, v == "b")', c), true);
  assert.deepEqual(run('claims.l.transformList(i, v, string(i) + v)', c), ['0a', '1b', '2c']);
  assert.deepEqual(run('claims.l.transformList(i, v, i > 0, v)', c), ['b', 'c']);
  assert.deepEqual(run('claims.m.transformMap(k, v, v * 2.0)', c), { x: 2, y: 4 });
  assert.match(compileClaimsExpression('claims.l.all(i, i, true)', 'any').error!, /variable names must be different/);
  const l = Array.from({ length: 2000 }, (_, i) => i);
  const nested = compileClaimsExpression('claims.l.all(i, x, claims.l.all(j, y, x == y || true))', 'bool').compiled!;
  assert.throws(() => evaluateClaims(nested, { l }), { message: COST_EXCEEDED_MESSAGE });
});
