import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import type http2 from 'node:http2';
import type { Socket } from 'node:net';
import { type AuthenticationResult, NO_CREDENTIALS } from '../auth/authenticator/interface.ts';
import { X509Authenticator } from '../auth/authenticator/x509.ts';
import { MaxInflight } from './filters/maxinflight.ts';
import { fakeRequest, fakeResponse } from './filters/testing.ts';
import { newHandlerContext } from './handler.ts';
import { buildHandlerChain, type HandlerChainConfig } from './handler-chain.ts';
import { installHTTP2EarlyRefusal, refusesAtHeaders } from './http2-early-refusal.ts';

const BASE = '/apis/events.cluster.io/v1';

/** A TLS socket whose verified certificate names alice (system:masters); counts certificate reads. */
function tlsSocket() {
  const s = {
    reads: 0,
    authorized: true,
    getPeerCertificate() {
      s.reads++;
      return { raw: Buffer.from('der'), subject: { CN: 'alice', O: ['system:masters'] } };
    },
  };
  return s;
}

/** A raw stream on a session over `socket`. */
function rawStream(socket: object) {
  return { session: { socket } } as unknown as http2.ServerHttp2Stream;
}

function config(authenticate: HandlerChainConfig['authenticator']['authenticate'] = () => ({ user: { name: 'alice', groups: ['system:masters'] } })) {
  // the mutating limit reached, the read-only one not
  const maxInFlight = new MaxInflight(10, 1);
  maxInFlight.acquire('create');
  return { authenticator: { authenticate }, authorizer: { authorize: () => ({ decision: 'Allow', reason: '' }) }, maxInFlight, requestTimeoutMs: 60_000 } satisfies HandlerChainConfig;
}

const refuses = (c: HandlerChainConfig, method: string, path: string, extra: http2.IncomingHttpHeaders = {}) =>
  refusesAtHeaders(c, rawStream({}), { ':method': method, ':path': path, ...extra });

describe('refusesAtHeaders', () => {
  it('refuses what withMaxInFlightLimit would, when nothing before it answers otherwise', () => {
    const c = config();
    assert.equal(refuses(c, 'POST', `${BASE}/namespaces/ns/events`), true);
    assert.equal(refuses(c, 'DELETE', `${BASE}/namespaces/ns/events/x?timeout=5s`), true, 'a valid ?timeout= changes nothing');
    assert.equal(refuses(c, 'GET', `${BASE}/events`), false, 'the read-only limit is not reached');
    assert.equal(refuses(c, 'GET', `${BASE}/events?watch=1`), false, 'watches are exempt');
    assert.equal(refuses(c, 'GET', '/readyz'), false, 'public paths are exempt');
  });

  it('leaves to the ordinary path what an earlier filter answers: 400, 401, 404, 400 ?timeout=', () => {
    const c = config();
    assert.equal(refuses(c, 'POST', `${BASE}/namespaces/%zz/events`), false);
    assert.equal(refuses(c, 'POST', '/api/v1/watch'), false);
    assert.equal(refuses(c, 'POST', `${BASE}/namespaces/ns/events?timeout=soon`), false);
    assert.equal(refuses(config(() => NO_CREDENTIALS), 'POST', `${BASE}/namespaces/ns/events`), false);
    assert.equal(refuses(config(() => ({ user: null, error: new Error('expired') })), 'POST', `${BASE}/namespaces/ns/events`), false);
    // withImpersonation's 400 and 403 come before the limit.
    assert.equal(refuses(c, 'POST', `${BASE}/namespaces/ns/events`, { 'impersonate-user': 'jane' }), false);
    assert.equal(refuses(c, 'POST', `${BASE}/namespaces/ns/events`, { 'impersonate-group': 'g' }), false);
  });

  it('leaves the unusual to the ordinary path: Expect, CONNECT, an authenticator that needs I/O', async () => {
    const c = config();
    assert.equal(refuses(c, 'POST', `${BASE}/namespaces/ns/events`, { expect: '100-continue' }), false);
    assert.equal(refuses(c, 'CONNECT', `${BASE}/namespaces/ns/events`), false);
    assert.equal(refusesAtHeaders(c, { session: undefined } as unknown as http2.ServerHttp2Stream, { ':method': 'POST', ':path': `${BASE}/namespaces/ns/events` }), false);
    let rejected = false;
    const slow = config(() => Promise.reject(new Error('webhook down')).finally(() => (rejected = true)) as Promise<AuthenticationResult>);
    assert.equal(refuses(slow, 'POST', `${BASE}/namespaces/ns/events`), false);
    await new Promise((r) => setImmediate(r));
    assert.equal(rejected, true, 'its rejection is handled, not left unhandled');
  });

  it('asks the x509 authenticator of the chain, whose per-connection answer serves both paths', async () => {
    const socket = tlsSocket();
    const c = { ...config(), authenticator: new X509Authenticator() };
    const session = { socket };
    // an ordinary request on the session first: the chain authenticates it
    const chain = buildHandlerChain(async (_req, res) => void res.end(), c);
    const res = fakeResponse();
    const req = Object.assign(fakeRequest('GET', `${BASE}/events`, {}, { ...socket }), { stream: { session } });
    await chain(req, res, newHandlerContext());
    assert.equal(res.written.status, 200);
    assert.equal(socket.reads, 1);
    // then the flood on the same session: refused from the raw stream with the cached answer
    for (let i = 0; i < 3; i++) {
      assert.equal(refusesAtHeaders(c, { session } as unknown as http2.ServerHttp2Stream, { ':method': 'POST', ':path': `${BASE}/namespaces/ns/events` }), true);
    }
    assert.equal(socket.reads, 1);
    // a connection without a usable certificate is not refused early: it gets its 401 the ordinary way
    const anonymous = { socket: { authorized: false, getPeerCertificate: () => ({}) } as unknown as Socket };
    assert.equal(refusesAtHeaders(c, { session: anonymous } as unknown as http2.ServerHttp2Stream, { ':method': 'POST', ':path': `${BASE}/namespaces/ns/events` }), false);
  });
});

describe('installHTTP2EarlyRefusal', () => {
  /** A server with node's one compat 'stream' listener, recording what it forwards. */
  function server() {
    const forwarded: unknown[][] = [];
    const s = new EventEmitter();
    s.on('stream', function (...args: unknown[]) {
      forwarded.push(args);
    });
    return { s: s as unknown as http2.Http2SecureServer, forwarded };
  }
  function stream() {
    const st = Object.assign(new EventEmitter(), { session: { socket: {} }, responded: undefined as unknown, body: '' });
    return Object.assign(st, {
      respond: (h: unknown) => void (st.responded = h),
      end: (b: Buffer) => void (st.body += b.toString()),
    });
  }

  it('answers a refusable stream with the prebuilt 429 and forwards everything else as it came', () => {
    const c = config();
    const { s, forwarded } = server();
    installHTTP2EarlyRefusal(s, c);
    const refused = stream();
    s.emit('stream', refused, { ':method': 'POST', ':path': `${BASE}/namespaces/ns/events` }, 4, ['raw']);
    assert.equal((refused.responded as Record<string, unknown>)[':status'], 429);
    assert.equal(refused.body, 'Too many requests, please try again later.\n');
    assert.equal(forwarded.length, 0);
    const served = stream();
    const headers = { ':method': 'GET', ':path': `${BASE}/events` };
    s.emit('stream', served, headers, 4, ['raw']);
    assert.deepEqual(forwarded, [[served, headers, 4, ['raw']]]);
    assert.equal(served.responded, undefined);
  });

  it('does not look at the headers while no limit is reached', () => {
    const c = { ...config(), maxInFlight: new MaxInflight(10, 10) };
    const { s, forwarded } = server();
    installHTTP2EarlyRefusal(s, c);
    s.emit('stream', stream(), { ':method': 'POST', ':path': `${BASE}/namespaces/ns/events` });
    assert.equal(forwarded.length, 1);
  });
});
