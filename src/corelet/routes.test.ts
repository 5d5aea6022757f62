import assert from 'node:assert/strict';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { Registry } from '../metrics/registry.ts';
import { writeText } from '../metrics/text.ts';
import { HttpMetrics, pathBucket, rootPath, serveRoute, type RouteHandler } from './routes.ts';

function call(port: number, method: string, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    request({ host: '127.0.0.1', port, method, path }, (r) => {
      let body = '';
      r.on('data', (d) => (body += d));
      r.on('end', () => resolve({ status: r.statusCode ?? 0, body }));
    })
      .on('error', reject)
      .end();
  });
}

describe('corelet routes and request metrics', () => {
  it('buckets paths as kubelet does: the first segment, metrics/<x> under /metrics, other for what is not served', () => {
    const served = new Set(['healthz', 'stats', 'metrics', 'metrics/resource']);
    assert.equal(rootPath('/stats/summary'), 'stats');
    assert.equal(rootPath('/metrics/resource'), 'metrics/resource');
    assert.equal(rootPath('/metrics'), 'metrics');
    assert.equal(rootPath('/metrics/'), 'metrics');
    assert.equal(pathBucket('/healthz', served), 'healthz');
    assert.equal(pathBucket('/stats/summary/extra', served), 'stats');
    assert.equal(pathBucket('/metrics/resource', served), 'metrics/resource');
    assert.equal(pathBucket('/metrics/cadvisor', served), 'other');
    assert.equal(pathBucket('/random/' + 'x'.repeat(50), served), 'other');
  });

  it('serves the table over a socket: 404 unknown, 405 other methods, 500 for a handler that throws; every request counted', async () => {
    const registry = new Registry({ version: '1.36.0' });
    const metrics = new HttpMetrics(registry);
    const routes = new Map<string, RouteHandler>([
      ['/healthz', (_req, res) => void res.end('ok')],
      ['/stats/summary', () => {
        throw new Error('no /proc');
      }],
    ]);
    const server = createServer((req, res) => void serveRoute(routes, metrics, req, res));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as AddressInfo;
    try {
      assert.deepEqual(await call(port, 'GET', '/healthz'), { status: 200, body: 'ok' });
      assert.deepEqual(await call(port, 'GET', '/stats/summary/'), { status: 500, body: 'no /proc\n' });
      assert.deepEqual(await call(port, 'POST', '/healthz'), { status: 405, body: '405 method not allowed\n' });
      assert.deepEqual(await call(port, 'GET', '/nope'), { status: 404, body: '404 page not found\n' });
      assert.equal((await call(port, 'BREW', '/healthz')).status, 400, 'Node refuses an unknown method itself');
      const out = writeText(registry.collect());
      assert.ok(out.includes('corelet_http_requests_total{long_running="false",method="GET",path="healthz",server_type="readonly"} 1\n'));
      assert.ok(out.includes('corelet_http_requests_total{long_running="false",method="POST",path="healthz",server_type="readonly"} 1\n'));
      assert.ok(out.includes('corelet_http_requests_total{long_running="false",method="GET",path="stats",server_type="readonly"} 1\n'));
      assert.ok(out.includes('corelet_http_requests_total{long_running="false",method="GET",path="other",server_type="readonly"} 1\n'));
      assert.ok(out.includes('corelet_http_inflight_requests{long_running="false",method="GET",path="healthz",server_type="readonly"} 0\n'));
      assert.ok(out.includes('corelet_http_requests_duration_seconds_count{long_running="false",method="GET",path="healthz",server_type="readonly"} 1\n'));
    } finally {
      server.close();
    }
  });

  it('runs the auth filter before any route (unknown paths included) and labels requests behind it readwrite', async () => {
    const registry = new Registry({ version: '1.36.0' });
    const metrics = new HttpMetrics(registry);
    let served = 0;
    const routes = new Map<string, RouteHandler>([['/healthz', (_req, res) => void (served++, res.end('ok'))]]);
    const filter = async (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => {
      if (req.headers.authorization === 'Bearer good') return true;
      res.writeHead(401, { 'Content-Type': 'text/plain; charset=utf-8' });
      res.end('Unauthorized');
      return false;
    };
    const server = createServer((req, res) => void serveRoute(routes, metrics, req, res, filter));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as AddressInfo;
    const get = (path: string, auth?: string) =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        request({ host: '127.0.0.1', port, path, headers: auth ? { authorization: auth } : {} }, (r) => {
          let body = '';
          r.on('data', (d) => (body += d));
          r.on('end', () => resolve({ status: r.statusCode ?? 0, body }));
        })
          .on('error', reject)
          .end();
      });
    try {
      assert.deepEqual(await get('/healthz'), { status: 401, body: 'Unauthorized' });
      assert.deepEqual(await get('/nope'), { status: 401, body: 'Unauthorized' });
      assert.equal(served, 0);
      assert.deepEqual(await get('/healthz', 'Bearer good'), { status: 200, body: 'ok' });
      assert.equal((await get('/nope', 'Bearer good')).status, 404);
      const out = writeText(registry.collect());
      assert.ok(out.includes('corelet_http_requests_total{long_running="false",method="GET",path="healthz",server_type="readwrite"} 2\n'), out);
    } finally {
      server.close();
    }
  });
});
