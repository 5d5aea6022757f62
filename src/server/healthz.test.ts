import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as http from 'node:http';
import * as http2 from 'node:http2';
import { PassThrough } from 'node:stream';
import type { AddressInfo } from 'node:net';
import { HealthChecks, logBlockedCheck, type HealthEndpoint } from './healthz.ts';

interface Reply {
  status: number;
  body: string;
  headers: http.IncomingHttpHeaders;
}

/** Serves `checks` on a real HTTP/1.1 server; unhandled paths get a bare 404. */
async function withServer(checks: HealthChecks, fn: (get: (path: string, method?: string) => Promise<Reply>) => Promise<void>) {
  const server = http.createServer((req, res) => {
    const u = new URL(req.url!, 'http://localhost');
    if (!checks.handle(req, res, u.pathname, u.searchParams)) {
      res.writeHead(404);
      res.end('404 page not found\n');
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  const get = (path: string, method = 'GET') =>
    new Promise<Reply>((resolve, reject) => {
      const req = http.request({ host: '127.0.0.1', port, path, method }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode!, body, headers: res.headers }));
      });
      req.on('error', reject);
      req.end();
    });
  try {
    await fn(get);
  } finally {
    server.close();
  }
}

function standard() {
  const logs: string[] = [];
  const observed: [string, HealthEndpoint, boolean][] = [];
  const h = new HealthChecks({ log: (m) => logs.push(m), observe: (...a) => observed.push(a) });
  let storageError: Error | null = null;
  h.add('log', () => {}, ['healthz', 'livez', 'readyz']);
  h.add('sqlite', async () => {
    if (storageError) throw storageError;
  }, ['healthz', 'livez', 'readyz']);
  return { h, logs, observed, failStorage: (e: Error | null) => (storageError = e) };
}

test('healthz: all checks pass', async () => {
  const { h, observed } = standard();
  assert.deepEqual(h.names('healthz'), ['ping', 'log', 'sqlite']);
  assert.deepEqual(h.names('readyz'), ['ping', 'log', 'sqlite', 'shutdown']);
  await withServer(h, async (get) => {
    for (const e of ['healthz', 'livez', 'readyz']) {
      const r = await get(`/${e}`);
      assert.equal(r.status, 200);
      assert.equal(r.body, 'ok');
      assert.equal(r.headers['content-type'], 'text/plain; charset=utf-8');
      assert.equal(r.headers['x-content-type-options'], 'nosniff');
    }
    assert.deepEqual(observed.slice(0, 3), [['ping', 'healthz', true], ['log', 'healthz', true], ['sqlite', 'healthz', true]]);
    const r = await get('/readyz?verbose');
    assert.equal(r.body, '[+]ping ok\n[+]log ok\n[+]sqlite ok\n[+]shutdown ok\nreadyz check passed\n');
    const ex = await get('/livez?verbose=1&exclude=sqlite&exclude=nope&exclude=abc');
    assert.equal(ex.status, 200);
    assert.equal(ex.body,
      '[+]ping ok\n[+]log ok\n[+]sqlite excluded: ok\nwarn: some health checks cannot be excluded: no matches for "abc","nope"\nlivez check passed\n');
    // without verbose only `ok`, even with exclusions
    assert.equal((await get('/livez?exclude=nope')).body, 'ok');
  });
});

test('healthz: a failing check withholds its reason and answers 500', async () => {
  const { h, logs, failStorage, observed } = standard();
  failStorage(new Error('database is locked'));
  await withServer(h, async (get) => {
    const r = await get('/healthz');
    assert.equal(r.status, 500);
    assert.equal(r.body, '[+]ping ok\n[+]log ok\n[-]sqlite failed: reason withheld\nhealthz check failed\n');
    assert.equal(r.headers['content-type'], 'text/plain; charset=utf-8');
    assert.equal(r.headers['x-content-type-options'], 'nosniff');
    assert.equal(logs[0], 'sqlite check failed: healthz\n[-]sqlite failed: database is locked\n');
    assert.deepEqual(observed.at(-1), ['sqlite', 'healthz', false]);
    // excluding the failing check makes the probe pass
    const ex = await get('/readyz?exclude=sqlite');
    assert.equal(ex.status, 200);
    assert.equal(ex.body, 'ok');
    // a single check shows its error
    const one = await get('/readyz/sqlite');
    assert.equal(one.status, 500);
    assert.equal(one.body, 'internal server error: database is locked\n');
    const ping = await get('/readyz/ping');
    assert.equal(ping.status, 200);
    assert.equal(ping.body, 'ok');
    assert.equal(ping.headers['content-type'], 'text/plain; charset=utf-8');
  });
});

test('healthz: shutdown fails readyz only', async () => {
  const { h } = standard();
  h.setShuttingDown();
  await withServer(h, async (get) => {
    const r = await get('/readyz');
    assert.equal(r.status, 500);
    assert.equal(r.body, '[+]ping ok\n[+]log ok\n[+]sqlite ok\n[-]shutdown failed: reason withheld\nreadyz check failed\n');
    assert.equal((await get('/readyz/shutdown')).body, 'internal server error: process is shutting down\n');
    assert.equal((await get('/livez')).status, 200);
    assert.equal((await get('/healthz')).status, 200);
    assert.equal((await get('/healthz/shutdown')).status, 404);
  });
});

test('healthz: synchronous throws, non-Error rejections and HEAD', async () => {
  const h = new HealthChecks();
  h.add('sync', () => {
    throw new Error('boom');
  }, ['livez']);
  h.add('poststarthook/start-x', () => Promise.reject('not finished'), ['livez']);
  await withServer(h, async (get) => {
    const r = await get('/livez');
    assert.equal(r.body, '[+]ping ok\n[-]sync failed: reason withheld\n[-]poststarthook/start-x failed: reason withheld\nlivez check failed\n');
    assert.equal((await get('/livez/poststarthook/start-x')).body, 'internal server error: not finished\n');
    const head = await get('/livez', 'HEAD');
    assert.equal(head.status, 500);
    assert.equal(head.body, '');
  });
});

test('healthz: paths that are not health checks are left to the caller', async () => {
  const { h } = standard();
  await withServer(h, async (get) => {
    for (const p of ['/healthz/', '/healthz/nope', '/readyzz', '/health', '/livez/ping/x']) {
      assert.equal((await get(p)).status, 404, p);
    }
  });
  assert.throws(() => h.add('sqlite', () => {}, ['readyz']), /already registered/);
  assert.throws(() => h.add('shutdown', () => {}, ['readyz']), /already registered/);
});

test('healthz: served through the HTTP/2 compatibility API', async () => {
  const { h } = standard();
  const server = http2.createServer((req, res) => {
    const u = new URL(req.url, 'http://localhost');
    if (!h.handle(req, res, u.pathname, u.searchParams)) {
      res.writeHead(404);
      res.end();
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const session = http2.connect(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  try {
    const { status, body, type } = await new Promise<{ status: number; body: string; type: string }>((resolve, reject) => {
      const req = session.request({ ':path': '/readyz?verbose' });
      let status = 0;
      let type = '';
      let body = '';
      req.on('response', (hd) => {
        status = Number(hd[':status']);
        type = String(hd['content-type']);
      });
      req.setEncoding('utf8');
      req.on('data', (c: string) => (body += c));
      req.on('end', () => resolve({ status, body, type }));
      req.on('error', reject);
      req.end();
    });
    assert.equal(status, 200);
    assert.equal(type, 'text/plain; charset=utf-8');
    assert.equal(body, '[+]ping ok\n[+]log ok\n[+]sqlite ok\n[+]shutdown ok\nreadyz check passed\n');
  } finally {
    session.close();
    server.close();
  }
});

test('logBlockedCheck: fails once the log stream stays backed up for 2 minutes', () => {
  let t = 0;
  const stream = new PassThrough({ highWaterMark: 4 });
  const check = logBlockedCheck(stream, () => t);
  check();
  stream.write('more than four bytes');
  assert.equal(stream.writableNeedDrain, true);
  check();
  t += 119_000;
  check();
  t += 1_000;
  assert.throws(() => check(), { message: 'logging blocked' });
  stream.read();
  assert.equal(stream.writableNeedDrain, false);
  check();
});

test('paths: every endpoint and each of its checks, as /statusz lists them', () => {
  const h = new HealthChecks();
  h.add('sqlite', () => {}, ['livez', 'readyz']);
  assert.deepEqual(h.paths(), ['/healthz', '/healthz/ping', '/livez', '/livez/ping', '/livez/sqlite', '/readyz', '/readyz/ping', '/readyz/sqlite', '/readyz/shutdown']);
});
