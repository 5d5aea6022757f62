/**
 * The unauthenticated HTTP/2 mitigation over real HTTP/2 connections (upstream's
 * TestUnauthenticatedHTTP2ClientConnectionClose): four requests one after the other through one client; with the
 * gate on, a request answered 401 or made anonymously ends its connection after the answer (GOAWAY, then close), so
 * each request needs a new one, while an authenticated client keeps its single connection. With the gate off every
 * client keeps one connection.
 */
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import { StatusError } from '../../apimachinery/errors.ts';
import { type AuthenticationResult, type Authenticator, NO_CREDENTIALS } from '../../auth/authenticator/interface.ts';
import { ANONYMOUS } from '../../auth/authenticator/anonymous.ts';
import { newLoopbackPKI } from '../../auth/authenticator/jwt/testing/loopback-pki.ts';
import { newHandlerContext } from '../handler.ts';
import type { Request, Response } from '../http-types.ts';
import { withAuthentication } from './authentication.ts';

/** Answers by the Authorization header, as upstream's test authenticator. */
const byHeader: Authenticator = {
  authenticate(req): AuthenticationResult {
    switch (req.headers.authorization) {
      case 'known':
        return { user: { name: 'panda', groups: ['system:authenticated'] } };
      case 'error':
        return { user: null, error: new Error('authn err') };
      case 'anonymous':
        return ANONYMOUS;
      case 'anonymous_group':
        return { user: { name: '', groups: ['system:unauthenticated'] } };
      default:
        return NO_CREDENTIALS;
    }
  },
};

const REQUESTS = 4;

describe('unauthenticated HTTP/2 connections are closed after the answer', () => {
  let pki: Awaited<ReturnType<typeof newLoopbackPKI>>;
  before(async () => {
    pki = await newLoopbackPKI();
  });

  /** A server with the filter (mitigation `on` or off); the connections it accepted. */
  async function serve(on: boolean): Promise<{ url: string; sessions: () => number; close: () => Promise<void> }> {
    const chain = withAuthentication(
      async (_req, res) => {
        res.writeHead(200).end('ok');
      },
      byHeader,
      { unauthenticatedHTTP2Mitigation: on },
    );
    let sessions = 0;
    const server = http2.createSecureServer({ cert: pki.certPem, key: pki.keyPem, allowHTTP1: true }, (req, res) => {
      const r = req as unknown as Request;
      const w = res as unknown as Response;
      // The filter throws at once when the authenticator answered at once.
      (async () => chain(r, w, newHandlerContext()))().catch((e: unknown) => {
        const code = e instanceof StatusError ? e.code : 500;
        w.writeHead(code).end(String(code));
      });
    });
    server.on('session', () => sessions++);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    return {
      url: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
      sessions: () => sessions,
      close: () => new Promise((r) => server.close(() => r())),
    };
  }

  /** `REQUESTS` GETs one after the other, each on the client's session while it is usable, else on a new one. */
  async function send(url: string, authorization: string | undefined): Promise<{ statuses: number[]; goaways: number }> {
    let session: http2.ClientHttp2Session | undefined;
    let goaways = 0;
    const statuses: number[] = [];
    const open: http2.ClientHttp2Session[] = [];
    for (let i = 0; i < REQUESTS; i++) {
      if (!session || session.closed || session.destroyed) {
        session = http2.connect(url, { ca: pki.caPem });
        session.on('goaway', () => goaways++);
        session.on('error', () => {});
        open.push(session);
      }
      const s = session;
      statuses.push(
        await new Promise<number>((resolve, reject) => {
          const req = s.request({ ':path': '/', ...(authorization ? { authorization } : {}) });
          let status = 0;
          req.on('response', (h) => (status = Number(h[':status'])));
          req.on('data', () => {});
          req.on('end', () => resolve(status));
          req.on('error', reject);
          req.end();
        }),
      );
      // Let a GOAWAY sent after the answer arrive before deciding whether the session is still usable.
      await new Promise((r) => setTimeout(r, 20));
    }
    for (const s of open) s.close();
    return { statuses, goaways };
  }

  const cases: [string, string | undefined, number][] = [
    ['known', 'known', 200],
    ['error', 'error', 401],
    ['anonymous', 'anonymous', 200],
    ['anonymous_group', 'anonymous_group', 200],
    ['other (no credentials, no anonymous)', undefined, 401],
  ];

  for (const [name, authorization, status] of cases) {
    it(`${name}: ${authorization === 'known' ? 'one connection' : 'a connection per request'} with the gate on, one with it off`, async () => {
      for (const on of [true, false]) {
        const s = await serve(on);
        try {
          const r = await send(s.url, authorization);
          assert.deepEqual(r.statuses, Array(REQUESTS).fill(status), `${name} on=${on}`);
          const closes = on && authorization !== 'known';
          assert.equal(s.sessions(), closes ? REQUESTS : 1, `${name} on=${on}: connections`);
          assert.equal(r.goaways, closes ? REQUESTS : 0, `${name} on=${on}: GOAWAY frames`);
        } finally {
          await s.close();
        }
      }
    });
  }

  it('HTTP/1.1 connections are left alone', async () => {
    const s = await serve(true);
    try {
      const https = await import('node:https');
      const agent = new https.Agent({ keepAlive: true, maxSockets: 1, ca: pki.caPem });
      for (let i = 0; i < 3; i++) {
        const status = await new Promise<number>((resolve, reject) => {
          https.get(`${s.url}/`, { agent }, (res) => {
            res.resume();
            res.on('end', () => resolve(res.statusCode ?? 0));
          }).on('error', reject);
        });
        assert.equal(status, 401);
      }
      agent.destroy();
      assert.equal(s.sessions(), 0, 'no HTTP/2 session at all');
    } finally {
      await s.close();
    }
  });
});
