import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Socket } from 'node:net';
import { type AuthenticatorRequest, NO_CREDENTIALS, takeAuthenticationWarnings } from './interface.ts';
import { BearerTokenAuthenticator, EXTRA_SPACE_WARNING, TokenUnion } from './token.ts';
import { TokenFileAuthenticator } from './token-file.ts';
import { AnonymousFallback } from './anonymous.ts';

const dir = mkdtempSync(join(tmpdir(), 'token-file-'));
function file(name: string, text: string): string {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
}
const req = (authorization?: string, url = '/api'): AuthenticatorRequest => ({ headers: authorization === undefined ? {} : { authorization }, socket: {} as Socket, url });

test('token file: upstream CSV records, groups in the quoted fourth field, later fields ignored', () => {
  const warnings: string[] = [];
  const p = file('tokens.csv', 'tok-a,alice,uid-a,"dev,ops",ignored\r\ntok-b,bob,\n\n"tok,c",carol,uid-c,\n');
  const a = TokenFileAuthenticator.fromFile(p, (m) => warnings.push(m));
  assert.equal(a.size, 3);
  assert.deepEqual(a.authenticateToken('tok-a').user, { name: 'alice', uid: 'uid-a', groups: ['dev', 'ops', 'system:authenticated'] });
  assert.deepEqual(a.authenticateToken('tok-b').user, { name: 'bob', groups: ['system:authenticated'] });
  // Go's strings.Split("", ",") is one empty group, kept as upstream keeps it
  assert.deepEqual(a.authenticateToken('tok,c').user, { name: 'carol', uid: 'uid-c', groups: ['', 'system:authenticated'] });
  assert.equal(a.authenticateToken('nope'), NO_CREDENTIALS);
  assert.deepEqual(warnings, []);
});

test('token file: empty tokens skipped and duplicates replaced, both with upstream warnings; errors with upstream texts', () => {
  const warnings: string[] = [];
  const p = file('dups.csv', ',nobody,u0\nt1,first,u1\nt1,second,u2\n');
  const a = TokenFileAuthenticator.fromFile(p, (m) => warnings.push(m));
  assert.equal(a.authenticateToken('t1').user?.name, 'second');
  assert.equal(a.authenticateToken('').user ?? null, null);
  assert.deepEqual(warnings, [`empty token has been found in token file '${p}', record number '1'`, `duplicate token has been found in token file '${p}', record number '3'`]);
  const short = file('short.csv', 'tok,alice,u\ntok2,bob\n');
  assert.throws(() => TokenFileAuthenticator.fromFile(short, () => {}), { message: `token file '${short}' must have at least 3 columns (token, user name, user uid), found 2` });
  assert.throws(() => TokenFileAuthenticator.fromFile(join(dir, 'missing.csv'), () => {}), { message: `open ${join(dir, 'missing.csv')}: no such file or directory` });
  const bad = file('bad.csv', 'a,b,c\nto"k,b,c\n');
  assert.throws(() => TokenFileAuthenticator.fromFile(bad, () => {}), { message: 'parse error on line 2, column 3: bare " in non-quoted-field' });
});

test('bearer: the scheme in any case, the token up to the next space; unknown tokens are refused', () => {
  const tokens = new TokenUnion([new TokenFileAuthenticator(new Map([['s3cret', { name: 'alice', groups: [] }]]))]);
  const b = new BearerTokenAuthenticator(tokens);
  for (const h of ['Bearer s3cret', 'bearer s3cret', 'BEARER s3cret', '  Bearer s3cret  ', 'Bearer s3cret extra']) {
    assert.equal((b.authenticate(req(h)) as { user: { name: string } }).user.name, 'alice', h);
  }
  for (const h of [undefined, '', 'Basic YWxpY2U6cHc=', 'Bearer', 'Bearers s3cret']) assert.equal(b.authenticate(req(h)), NO_CREDENTIALS, String(h));
  const refused = b.authenticate(req('Bearer wrong'));
  assert.equal((refused as { error: Error }).error.message, 'invalid bearer token');
});

test('bearer: two spaces before the token is no credential, with upstream\'s warning', () => {
  const b = new BearerTokenAuthenticator(new TokenUnion([new TokenFileAuthenticator(new Map([['t', { name: 'a', groups: [] }]]))]));
  const r = req('Bearer  t');
  assert.equal(b.authenticate(r), NO_CREDENTIALS);
  assert.deepEqual(takeAuthenticationWarnings(r), [EXTRA_SPACE_WARNING]);
  assert.equal(takeAuthenticationWarnings(r), undefined);
});

test('bearer: without any token authenticator a bearer token is not a credential; the union takes new ones (reload hook)', async () => {
  const tokens = new TokenUnion();
  const b = new BearerTokenAuthenticator(tokens);
  assert.equal(b.authenticate(req('Bearer x')), NO_CREDENTIALS);
  const jwt = { authenticateToken: async (t: string) => (t === 'jwt' ? { user: { name: 'oidc:jane', groups: ['system:authenticated'] } } : NO_CREDENTIALS) };
  const refusing = { authenticateToken: () => ({ user: null, error: new Error('oidc: token expired') }) };
  tokens.set([new TokenFileAuthenticator(new Map([['file', { name: 'f', groups: [] }]])), jwt, refusing]);
  assert.equal((await b.authenticate(req('Bearer jwt'))).user?.name, 'oidc:jane');
  assert.equal((await b.authenticate(req('Bearer file'))).user?.name, 'f');
  // an authenticator's own refusal is the error; none at all: invalid bearer token
  assert.equal((await b.authenticate(req('Bearer other'))).error?.message, 'oidc: token expired');
  tokens.set([jwt]);
  assert.equal((await b.authenticate(req('Bearer other'))).error?.message, 'invalid bearer token');
});

test('anonymous: only without any credential; a refused one stays refused; conditions restrict the paths', async () => {
  const none = { authenticate: () => NO_CREDENTIALS };
  const refused = { authenticate: () => ({ user: null, error: new Error('invalid bearer token') }) };
  const alice = { authenticate: async () => ({ user: { name: 'alice', groups: ['system:authenticated'] } }) };
  assert.deepEqual((new AnonymousFallback(none).authenticate(req()) as { user: object }).user, { name: 'system:anonymous', groups: ['system:unauthenticated'] });
  assert.equal((new AnonymousFallback(refused).authenticate(req()) as { error: Error }).error.message, 'invalid bearer token');
  assert.equal((await new AnonymousFallback(alice).authenticate(req())).user?.name, 'alice');
  const onlyHealth = new AnonymousFallback(none, ['/healthz']);
  assert.equal((onlyHealth.authenticate(req(undefined, '/healthz?verbose')) as { user: { name: string } }).user.name, 'system:anonymous');
  assert.equal(onlyHealth.authenticate(req(undefined, '/api')), NO_CREDENTIALS);
});
