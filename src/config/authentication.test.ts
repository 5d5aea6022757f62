import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AuthenticationConfigError, decodeAuthenticationConfiguration, loadAuthenticationConfiguration } from './authentication.ts';
import { compileAndValidateAuthenticationConfiguration } from './authentication-validation.ts';

type Obj = Record<string, any>;

const base = (): Obj => ({
  apiVersion: 'apiserver.config.cluster.io/v1',
  kind: 'AuthenticationConfiguration',
  jwt: [
    {
      issuer: { url: 'https://issuer.example.com', audiences: ['core'] },
      claimMappings: { username: { claim: 'sub', prefix: 'oidc:' } },
    },
  ],
});

/** The field error texts of `obj` after `mutate`. */
function errorsOf(mutate: (o: Obj) => void, opts = {}): string[] {
  const o = base();
  mutate(o);
  return compileAndValidateAuthenticationConfiguration(decodeAuthenticationConfiguration(JSON.stringify(o)), opts).errors.map((e) => e.text());
}
const jwt0 = (o: Obj) => o.jwt[0];

test('authentication config: a minimal valid file decodes with zero values where fields are absent', () => {
  const c = decodeAuthenticationConfiguration(JSON.stringify(base()));
  assert.deepEqual(c.jwt[0]!.issuer, { url: 'https://issuer.example.com', discoveryURL: '', certificateAuthority: '', audiences: ['core'], audienceMatchPolicy: '', egressSelectorType: '' });
  assert.deepEqual(c.jwt[0]!.claimMappings.username, { claim: 'sub', expression: '', prefix: 'oidc:' });
  assert.equal(c.jwt[0]!.claimMappings.groups.prefix, undefined, 'an absent prefix stays absent');
  assert.equal(c.anonymous, undefined);
  assert.deepEqual(errorsOf(() => {}), []);
  assert.deepEqual(errorsOf((o) => (o.jwt = [])), [], 'zero authenticators are allowed');
});

test('authentication config: YAML, every accepted version, and the loader refusals in upstream words', () => {
  const yaml = `apiVersion: apiserver.config.cluster.io/v1beta1
kind: AuthenticationConfiguration
anonymous:
  enabled: true
  conditions:
  - path: /livez
`;
  assert.deepEqual(decodeAuthenticationConfiguration(yaml).anonymous, { enabled: true, conditions: [{ path: '/livez' }] });
  assert.doesNotThrow(() => decodeAuthenticationConfiguration(yaml.replace('v1beta1', 'v1alpha1')));
  assert.throws(() => decodeAuthenticationConfiguration(''), { message: 'empty config data' });
  assert.throws(() => decodeAuthenticationConfiguration('apiVersion: apiserver.config.cluster.io/v1\nkind: AuthorizationConfiguration\n'), {
    message: 'expected AuthenticationConfiguration, got *apiserver.AuthorizationConfiguration',
  });
  assert.throws(() => decodeAuthenticationConfiguration('apiVersion: apiserver.config.cluster.io/v1\n'), /^Error: Object 'Kind' is missing in/);
  assert.throws(() => decodeAuthenticationConfiguration('apiVersion: apiserver.config.k8s.io/v1\nkind: AuthenticationConfiguration\n'), {
    message: 'no kind "AuthenticationConfiguration" is registered for version "apiserver.config.k8s.io/v1" in scheme "pkg/kubeapiserver/options/authentication.go"',
  });
  assert.throws(() => decodeAuthenticationConfiguration('a: [b'), /^Error: error converting YAML to JSON: yaml: line/);
});

test('authentication config: strict decoding names unknown fields by their path, and wrong types as Go does', () => {
  const o = base();
  o.jwt[0].issuer.bogus = 1;
  o.jwt[0].claimMappings.username.Prefix = 'x';
  o.extra = true;
  assert.throws(() => decodeAuthenticationConfiguration(JSON.stringify(o)), {
    message: 'strict decoding error: unknown field "jwt[0].issuer.bogus", unknown field "jwt[0].claimMappings.username.Prefix", unknown field "extra"',
  });
  const t = base();
  t.jwt[0].issuer.url = 5;
  t.extra = true;
  assert.throws(() => decodeAuthenticationConfiguration(JSON.stringify(t)), {
    message: 'json: cannot unmarshal number into Go struct field Issuer.jwt.issuer.url of type string',
  });
  assert.throws(() => decodeAuthenticationConfiguration('apiVersion: apiserver.config.cluster.io/v1\nkind: AuthenticationConfiguration\njwt: []\njwt: []\n'), {
    message: 'strict decoding error: error converting YAML to JSON: yaml: unmarshal errors:\n  line 4: key "jwt" already set in map',
  });
});

test('authentication config: issuer URL rules', () => {
  assert.deepEqual(errorsOf((o) => (jwt0(o).issuer.url = '')), ['jwt[0].issuer.url: Required value']);
  assert.deepEqual(errorsOf((o) => (jwt0(o).issuer.url = 'http://x.example')), ['jwt[0].issuer.url: Invalid value: "http://x.example": URL scheme must be https']);
  assert.deepEqual(errorsOf((o) => (jwt0(o).issuer.url = 'https://u:p@x.example/a?q=1#f')), [
    'jwt[0].issuer.url: Invalid value: "https://u:p@x.example/a?q=1#f": URL must not contain a username or password',
    'jwt[0].issuer.url: Invalid value: "https://u:p@x.example/a?q=1#f": URL must not contain a query',
    'jwt[0].issuer.url: Invalid value: "https://u:p@x.example/a?q=1#f": URL must not contain a fragment',
  ]);
  assert.deepEqual(errorsOf((o) => (jwt0(o).issuer.url = 'https://x.example:port')), [
    'jwt[0].issuer.url: Invalid value: "https://x.example:port": parse "https://x.example:port": invalid port ":port" after host',
  ]);
  assert.deepEqual(errorsOf((o) => (jwt0(o).issuer.url = '://x')), ['jwt[0].issuer.url: Invalid value: "://x": parse "://x": missing protocol scheme']);
  assert.deepEqual(errorsOf((o) => (jwt0(o).issuer.url = 'https://issuer.example.com'), { disallowedIssuers: ['https://issuer.example.com', 'https://a'] }), [
    'jwt[0].issuer.url: Invalid value: "https://issuer.example.com": URL must not overlap with disallowed issuers: [https://a https://issuer.example.com]',
  ]);
  assert.deepEqual(
    errorsOf((o) => o.jwt.push(structuredClone(jwt0(o)))),
    ['jwt[1].issuer.url: Duplicate value: "https://issuer.example.com"'],
  );
});

test('authentication config: discoveryURL rules', () => {
  assert.deepEqual(errorsOf((o) => (jwt0(o).issuer.discoveryURL = 'https://issuer.example.com/')), [
    'jwt[0].issuer.discoveryURL: Invalid value: "https://issuer.example.com/": discoveryURL must be different from URL',
  ]);
  assert.deepEqual(errorsOf((o) => (jwt0(o).issuer.discoveryURL = 'http://d.example/x?y')), [
    'jwt[0].issuer.discoveryURL: Invalid value: "http://d.example/x?y": URL scheme must be https',
    'jwt[0].issuer.discoveryURL: Invalid value: "http://d.example/x?y": URL must not contain a query',
  ]);
  assert.deepEqual(
    errorsOf((o) => {
      jwt0(o).issuer.discoveryURL = 'https://d.example/.well-known/openid-configuration';
      const second = structuredClone(jwt0(o));
      second.issuer.url = 'https://other.example';
      o.jwt.push(second);
    }),
    ['jwt[1].issuer.discoveryURL: Duplicate value: "https://d.example/.well-known/openid-configuration"'],
  );
});

test('authentication config: audiences, match policy, certificate authority and egress selector', () => {
  assert.deepEqual(errorsOf((o) => (jwt0(o).issuer.audiences = [])), ['jwt[0].issuer.audiences: Required value: at least one jwt[0].issuer.audiences is required']);
  assert.deepEqual(errorsOf((o) => (jwt0(o).issuer.audiences = ['a', '', 'a'])), [
    'jwt[0].issuer.audiences[1]: Required value',
    'jwt[0].issuer.audiences[2]: Duplicate value: "a"',
    'jwt[0].issuer.audienceMatchPolicy: Invalid value: "": audienceMatchPolicy must be MatchAny for multiple audiences',
  ]);
  assert.deepEqual(errorsOf((o) => ((jwt0(o).issuer.audiences = ['a', 'b']), (jwt0(o).issuer.audienceMatchPolicy = 'MatchAny'))), []);
  assert.deepEqual(errorsOf((o) => (jwt0(o).issuer.audienceMatchPolicy = 'MatchAll')), [
    'jwt[0].issuer.audienceMatchPolicy: Invalid value: "MatchAll": audienceMatchPolicy must be empty or MatchAny for single audience',
  ]);
  assert.deepEqual(errorsOf((o) => (jwt0(o).issuer.certificateAuthority = 'not a pem')), [
    'jwt[0].issuer.certificateAuthority: Invalid value: "<omitted>": data does not contain any valid RSA or ECDSA certificates',
  ]);
  assert.deepEqual(errorsOf((o) => (jwt0(o).issuer.egressSelectorType = 'etcd')), [
    'jwt[0].issuer.egressSelectorType: Invalid value: "etcd": egress selector must be either controlplane or cluster',
  ]);
  assert.deepEqual(errorsOf((o) => (jwt0(o).issuer.egressSelectorType = 'cluster')), []);
});

test('authentication config: claim validation rules', () => {
  const rules = (o: Obj, r: Obj[]) => (jwt0(o).claimValidationRules = r);
  assert.deepEqual(errorsOf((o) => rules(o, [{ claim: 'hd', expression: 'true' }])), [`jwt[0].claimValidationRules[0]: Invalid value: "hd": claim and expression can't both be set`]);
  assert.deepEqual(errorsOf((o) => rules(o, [{}])), ['jwt[0].claimValidationRules[0]: Required value: claim or expression is required']);
  assert.deepEqual(errorsOf((o) => rules(o, [{ claim: 'hd', message: 'm' }, { claim: 'hd' }])), [
    'jwt[0].claimValidationRules[0].message: Invalid value: "m": may not be specified when claim is set',
    'jwt[0].claimValidationRules[1].claim: Duplicate value: "hd"',
  ]);
  assert.deepEqual(errorsOf((o) => rules(o, [{ expression: 'claims.hd == "x"', requiredValue: 'v' }, { expression: 'claims.hd == "x"' }])), [
    'jwt[0].claimValidationRules[0].requiredValue: Invalid value: "v": may not be specified when expression is set',
    'jwt[0].claimValidationRules[1].expression: Duplicate value: "claims.hd == \\"x\\""',
  ]);
  assert.deepEqual(errorsOf((o) => rules(o, [{ expression: 'claims.hd' }])), ['jwt[0].claimValidationRules[0].expression: Invalid value: "claims.hd": must evaluate to bool']);
  const [compileErr] = errorsOf((o) => rules(o, [{ expression: 'claims.hd ==' }]));
  assert.match(compileErr!, /^jwt\[0\]\.claimValidationRules\[0\]\.expression: Invalid value: "claims\.hd ==": compilation failed: ERROR: <input>:1:13: /);
});

test('authentication config: claim mappings', () => {
  const cm = (o: Obj) => jwt0(o).claimMappings;
  assert.deepEqual(errorsOf((o) => (cm(o).username = { claim: 'sub', expression: 'claims.sub' })), [`jwt[0].claimMappings.username: Invalid value: "": claim and expression can't both be set`]);
  assert.deepEqual(errorsOf((o) => (cm(o).username = {})), ['jwt[0].claimMappings.username: Required value: claim or expression is required']);
  assert.deepEqual(errorsOf((o) => (cm(o).username = { expression: 'claims.sub', prefix: 'p:' })), ['jwt[0].claimMappings.username.prefix: Invalid value: "p:": may not be specified when expression is set']);
  assert.deepEqual(errorsOf((o) => (cm(o).username = { claim: 'sub' })), [
    'jwt[0].claimMappings.username.prefix: Required value: prefix is required when claim is set. It can be set to an empty string to disable prefixing',
  ]);
  assert.deepEqual(errorsOf((o) => (cm(o).username = { claim: 'sub', prefix: '' })), [], 'an empty prefix is a prefix');
  assert.deepEqual(errorsOf((o) => (cm(o).groups = { claim: 'groups' })), [
    'jwt[0].claimMappings.groups.prefix: Required value: prefix is required when claim is set. It can be set to an empty string to disable prefixing',
  ]);
  assert.deepEqual(errorsOf((o) => (cm(o).groups = {})), [], 'groups are optional');
  assert.deepEqual(errorsOf((o) => (cm(o).uid = { claim: 'sub', expression: 'claims.sub' })), [`jwt[0].claimMappings.uid: Invalid value: "": claim and expression can't both be set`]);
  assert.deepEqual(errorsOf((o) => (cm(o).uid = { expression: 'claims.' })).length, 1);
});

test('authentication config: extra mappings', () => {
  const extra = (o: Obj, e: Obj[]) => (jwt0(o).claimMappings.extra = e);
  assert.deepEqual(errorsOf((o) => extra(o, [{ key: 'foo', valueExpression: '"x"' }])), ['jwt[0].claimMappings.extra[0].key: Invalid value: "foo": must be a domain-prefixed path (such as "acme.io/foo")']);
  assert.deepEqual(errorsOf((o) => extra(o, [{ valueExpression: '"x"' }])), ['jwt[0].claimMappings.extra[0].key: Required value']);
  assert.deepEqual(errorsOf((o) => extra(o, [{ key: 'Example.org/Foo', valueExpression: '"x"' }])), [
    `jwt[0].claimMappings.extra[0].key: Invalid value: "Example.org": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
    'jwt[0].claimMappings.extra[0].key: Invalid value: "Example.org/Foo": must be lowercase',
  ]);
  assert.deepEqual(errorsOf((o) => extra(o, [{ key: 'example.org/a b', valueExpression: '"x"' }])), [
    `jwt[0].claimMappings.extra[0].key: Invalid value: "a b": Invalid path (regex used for validation is '[A-Za-z0-9/\\-._~%!$&'()*+,;=:]+')`,
  ]);
  assert.deepEqual(errorsOf((o) => extra(o, [{ key: 'sub.kubernetes.io/x', valueExpression: '"x"' }, { key: 'authentication.cluster.io/credential-id', valueExpression: '"x"' }])), [
    'jwt[0].claimMappings.extra[0].key: Invalid value: "sub.kubernetes.io/x": k8s.io, kubernetes.io and their subdomains are reserved for Kubernetes use',
    'jwt[0].claimMappings.extra[1].key: Invalid value: "authentication.cluster.io/credential-id": cluster.io and its subdomains are reserved for Kubernetes use',
  ]);
  assert.deepEqual(errorsOf((o) => extra(o, [{ key: 'example.org/a', valueExpression: '"x"' }, { key: 'example.org/a', valueExpression: '"y"' }, { key: 'example.org/b' }])), [
    'jwt[0].claimMappings.extra[1].key: Duplicate value: "example.org/a"',
    'jwt[0].claimMappings.extra[2].valueExpression: Required value',
  ]);
});

test('authentication config: claims.email in the username expression needs claims.email_verified somewhere', () => {
  const msg =
    'jwt[0].claimMappings.username.expression: Invalid value: "claims.email": claims.email_verified must be used in claimMappings.username.expression or claimMappings.extra[*].valueExpression or claimValidationRules[*].expression when claims.email is used in claimMappings.username.expression';
  const username = (o: Obj, expression: string) => (jwt0(o).claimMappings.username = { expression });
  assert.deepEqual(errorsOf((o) => username(o, 'claims.email')), [msg]);
  assert.deepEqual(errorsOf((o) => username(o, 'claims.?email.orValue("")')).length, 1, 'an optional select counts as a use');
  assert.deepEqual(errorsOf((o) => username(o, 'claims["email"]')), [], 'an index is not a select (upstream walks the AST the same way)');
  assert.deepEqual(errorsOf((o) => username(o, 'claims.email_verified ? claims.email : ""')), []);
  assert.deepEqual(errorsOf((o) => (username(o, 'claims.email'), (jwt0(o).claimValidationRules = [{ expression: 'claims.?email_verified.orValue(true) == true' }]))), []);
  assert.deepEqual(errorsOf((o) => (username(o, 'claims.email'), (jwt0(o).claimMappings.extra = [{ key: 'example.org/v', valueExpression: 'string(claims.email_verified)' }]))), []);
  assert.deepEqual(errorsOf((o) => (username(o, 'claims.email'), (jwt0(o).userValidationRules = [{ expression: 'user.username != "x"' }]))), [msg], 'user rules do not count');
});

test('authentication config: user validation rules and anonymous', () => {
  const rules = (o: Obj, r: Obj[]) => (jwt0(o).userValidationRules = r);
  assert.deepEqual(errorsOf((o) => rules(o, [{ message: 'm' }])), ['jwt[0].userValidationRules[0].expression: Required value']);
  assert.deepEqual(errorsOf((o) => rules(o, [{ expression: '!user.username.startsWith("system:")' }, { expression: '!user.username.startsWith("system:")' }])), [
    'jwt[0].userValidationRules[1].expression: Duplicate value: "!user.username.startsWith(\\"system:\\")"',
  ]);
  assert.deepEqual(errorsOf((o) => rules(o, [{ expression: 'user.username' }])), ['jwt[0].userValidationRules[0].expression: Invalid value: "user.username": must evaluate to bool']);
  assert.match(errorsOf((o) => rules(o, [{ expression: 'claims.sub == "x"' }]))[0]!, /compilation failed: ERROR: <input>:1:1: undeclared reference to 'claims' \(in container ''\)/);
  assert.deepEqual(errorsOf((o) => (o.anonymous = { enabled: false, conditions: [{ path: '/livez' }] })), [
    'anonymous.conditions: Invalid value: [{"path":"/livez"}]: enabled should be set to true when conditions are defined',
  ]);
  assert.deepEqual(errorsOf((o) => (o.jwt = Array.from({ length: 65 }, (_, i) => ({ ...jwt0(o), issuer: { url: `https://i${i}.example`, audiences: ['a'] } })))), [
    'jwt: Too many: 65: must have at most 64 items',
  ]);
});

test('authentication config: the loader wraps errors as kube-apiserver does and aggregates field errors', () => {
  const dir = mkdtempSync(join(tmpdir(), 'authn-config-'));
  const file = join(dir, 'auth.yaml');
  assert.throws(() => loadAuthenticationConfiguration(join(dir, 'missing.yaml')), {
    message: `failed to load authentication configuration from file "${join(dir, 'missing.yaml')}": open ${join(dir, 'missing.yaml')}: no such file or directory`,
  });
  writeFileSync(file, '');
  assert.throws(() => loadAuthenticationConfiguration(file), { message: `failed to load authentication configuration from file "${file}": empty config data` });
  const o = base();
  o.jwt[0].issuer.url = 'http://x';
  o.jwt[0].issuer.audiences = [];
  writeFileSync(file, JSON.stringify(o));
  assert.throws(
    () => loadAuthenticationConfiguration(file),
    (e: unknown) => {
      assert.ok(e instanceof AuthenticationConfigError);
      assert.equal(
        e.message,
        'invalid authentication configuration: [jwt[0].issuer.url: Invalid value: "http://x": URL scheme must be https, jwt[0].issuer.audiences: Required value: at least one jwt[0].issuer.audiences is required]',
      );
      assert.equal(e.fieldErrors.length, 2);
      return true;
    },
  );
  writeFileSync(file, JSON.stringify(base()));
  const loaded = loadAuthenticationConfiguration(file);
  assert.equal(loaded.jwt.length, 1);
  assert.equal(loaded.data, JSON.stringify(base()));
});

test('authentication config: the example in examples/ loads', () => {
  const loaded = loadAuthenticationConfiguration(join(import.meta.dirname, '..', '..', 'examples', 'authentication-config.yaml'));
  assert.equal(loaded.jwt.length, 1);
  assert.equal(loaded.jwt[0]!.claimValidationRules.length, 2);
  assert.deepEqual(loaded.config.anonymous, { enabled: true, conditions: [{ path: '/livez' }, { path: '/readyz' }] });
});
