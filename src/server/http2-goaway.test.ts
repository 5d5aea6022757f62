/**
 * goAway over real HTTP/2 connections: GOAWAY at once, no new stream accepted, the streams open on the connection
 * answered in full, and the connection closed by the server once they are done, also when the client does not close it.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import http2 from 'node:http2';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { rawFrame } from '../util/testing/h2-frame.ts';
import { GOAWAY_GRACE_MS, goAway, openStreamCount, trackOpenStreams } from './http2-goaway.ts';

describe('goAway', () => {
  let server: http2.Http2Server;
  let url = '';
  const sessions: http2.ServerHttp2Session[] = [];
  const closedAt = new Map<http2.ServerHttp2Session, number>();
  /** Answers of /slow wait for this to be called. */
  const releaseSlow: (() => void)[] = [];

  before(async () => {
    server = http2.createServer();
    server.on('session', (s: http2.ServerHttp2Session) => {
      sessions.push(s);
      trackOpenStreams(s);
      s.on('close', () => closedAt.set(s, Date.now()));
    });
    server.on('stream', (stream, headers) => {
      const path = headers[':path'];
      if (path === '/bye') {
        goAway(stream.session);
        stream.respond({ ':status': 200 });
        stream.end('bye');
      } else if (path === '/slow') {
        releaseSlow.push(() => {
          stream.respond({ ':status': 200 });
          stream.end('x'.repeat(200_000));
        });
      } else {
        stream.respond({ ':status': 200 });
        stream.end('ok');
      }
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((r) => server.close(() => r())));

  function get(session: http2.ClientHttp2Session, path: string): Promise<{ status: number; bytes: number }> {
    return new Promise((resolve, reject) => {
      const req = session.request({ ':path': path });
      let status = 0;
      let bytes = 0;
      req.on('response', (h) => (status = Number(h[':status'])));
      req.on('data', (d: Buffer) => (bytes += d.length));
      req.on('end', () => resolve({ status, bytes }));
      req.on('error', reject);
      req.end();
    });
  }

  it('answers the open streams in full, then the server closes the connection', async () => {
    const before = sessions.length;
    const client = http2.connect(url);
    client.on('error', () => {});
    let goaways = 0;
    client.on('goaway', () => goaways++);
    const slow = get(client, '/slow');
    await new Promise((r) => setTimeout(r, 50));
    const server = sessions[before]!;
    assert.equal(openStreamCount(server), 1);
    const bye = await get(client, '/bye');
    assert.deepEqual(bye, { status: 200, bytes: 3 });
    assert.equal(goaways, 1);
    // Past the grace the slow stream is still open: the connection stays.
    await new Promise((r) => setTimeout(r, GOAWAY_GRACE_MS + 300));
    assert.equal(server.destroyed, false, 'closed with a stream open');
    const released = Date.now();
    releaseSlow.shift()!();
    assert.deepEqual(await slow, { status: 200, bytes: 200_000 });
    const deadline = Date.now() + 3000;
    while (!closedAt.has(server) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    assert.ok(closedAt.get(server)! - released < 1000, `closed ${closedAt.get(server)! - released} ms after its last stream`);
    assert.equal(openStreamCount(server), 0);
    client.destroy();
  });

  it('closes the connection of a client that ignores the GOAWAY, and accepts no stream after it', async () => {
    // A raw HTTP/2 client that never closes: the preface, SETTINGS, then one request (HEADERS, END_STREAM) for /bye;
    // after the GOAWAY it opens stream 3, which the server must not answer.
    const before = sessions.length;
    const sock = net.connect(Number(new URL(url).port), '127.0.0.1');
    const received: Buffer[] = [];
    sock.on('data', (d) => received.push(d));
    const closed = new Promise<number>((r) => sock.on('close', () => r(Date.now())));
    await new Promise((r) => sock.once('connect', r));
    // HPACK: :method GET and :scheme http from the static table (2, 6); :authority and :path as literals without
    // indexing whose names are static entries 1 and 4.
    const headers = (path: string) =>
      Buffer.concat([Buffer.from([0x82, 0x86, 0x01, 9]), Buffer.from('localhost'), Buffer.from([0x04, path.length]), Buffer.from(path)]);
    sock.write(Buffer.concat([Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n'), rawFrame(4, 0, 0, Buffer.alloc(0)), rawFrame(1, 0x5, 1, headers('/bye'))]));
    await new Promise((r) => setTimeout(r, 200));
    sock.write(rawFrame(1, 0x5, 3, headers('/')));
    const at = Date.now();
    const end = await Promise.race([closed, new Promise<number>((r) => setTimeout(() => r(-1), GOAWAY_GRACE_MS + 3000))]);
    assert.notEqual(end, -1, 'the server did not close the connection');
    assert.ok(end - at >= GOAWAY_GRACE_MS - 300, `closed after ${end - at} ms, before the grace`);
    // Frames the server sent: a GOAWAY, and HEADERS for stream 1 only.
    const all = Buffer.concat(received);
    const types: [number, number][] = [];
    for (let i = 0; i + 9 <= all.length; ) {
      const len = all.readUIntBE(i, 3);
      types.push([all[i + 3]!, all.readUInt32BE(i + 5) & 0x7fffffff]);
      i += 9 + len;
    }
    assert.ok(types.some(([t]) => t === 7), 'no GOAWAY');
    assert.deepEqual(types.filter(([t]) => t === 1).map(([, id]) => id), [1], 'HEADERS answered other than stream 1');
    assert.equal(sessions[before]!.destroyed, true);
  });
});
