import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import http2 from 'node:http2';
import net, { type AddressInfo } from 'node:net';
import { UnaryChannel, type GrpcError } from './unary.ts';
import { rawFrame } from '../../util/testing/h2-frame.ts';

/**
 * The etcd client's own HTTP/2 framing (h2.ts, through unary.ts) against node:http2's server (nghttp2, an HTTP/2
 * implementation we did not write) for flow control both ways, HPACK tables, deadlines and GOAWAY, and against
 * hand-written frames for what nghttp2's server API cannot be made to send.
 */

const grpcFrame = (b: Buffer) => {
  const f = Buffer.alloc(5 + b.length);
  f.writeUInt32BE(b.length, 1);
  b.copy(f, 5);
  return f;
};

function answer(s: http2.ServerHttp2Stream, body: Buffer): void {
  s.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true });
  s.once('wantTrailers', () => s.sendTrailers({ 'grpc-status': '0', 'grpc-message': '' }));
  s.end(grpcFrame(body));
}

describe('etcd client HTTP/2 framing against node:http2', () => {
  const srv = http2.createServer();
  const sessions: http2.ServerHttp2Session[] = [];
  let target = '';
  srv.on('session', (s) => sessions.push(s));
  srv.on('stream', (s, headers) => {
    s.on('error', () => {});
    const chunks: Buffer[] = [];
    s.on('data', (d: Buffer) => chunks.push(d));
    s.on('end', () => {
      const req = Buffer.concat(chunks).subarray(5);
      switch (headers[':path']) {
        case '/t.T/Echo': // the request back, and what the server saw of the headers
          return answer(s, Buffer.concat([Buffer.from(`${headers['content-type']} ${headers.te} ${headers[':authority']}|`), req]));
        case '/t.T/Big': // an answer of N MiB (N in the request)
          return answer(s, Buffer.alloc(Number(req.toString()) << 20, 7));
        case '/t.T/Slow':
          return setTimeout(() => !s.destroyed && answer(s, req), 300);
        case '/t.T/Fail':
          s.respond({ ':status': 200, 'content-type': 'application/grpc', 'grpc-status': '5', 'grpc-message': 'not%20here' }, { endStream: true });
          return;
        case '/t.T/Http':
          s.respond({ ':status': 503 }, { endStream: true });
          return;
      }
    });
  });
  let channel: UnaryChannel;
  before(async () => {
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
    target = `127.0.0.1:${(srv.address() as AddressInfo).port}`;
    channel = new UnaryChannel(target, { keepaliveTimeMs: 0, keepaliveTimeoutMs: 0 });
  });
  after(() => {
    channel.close();
    srv.close();
  });

  it("sends gRPC's headers; 300 concurrent calls of 40 KiB each and one of 3 MiB go through both send windows", async () => {
    const one = await channel.call('/t.T/Echo', Buffer.from('hi'));
    assert.equal(one.toString(), `application/grpc trailers ${target}|hi`);
    // 12 MB against nghttp2's 64 KiB connection and stream windows: sending waits for its WINDOW_UPDATEs.
    const bodies = Array.from({ length: 300 }, (_, i) => Buffer.alloc(40 << 10, i % 251));
    const got = await Promise.all(bodies.map((b) => channel.call('/t.T/Echo', b)));
    got.forEach((g, i) => assert.ok(g.subarray(g.indexOf('|') + 1).equals(bodies[i]!), `call ${i}`));
    const big = Buffer.alloc(3 << 20, 9);
    const res = await channel.call('/t.T/Echo', big);
    assert.ok(res.subarray(res.indexOf('|') + 1).equals(big));
  });

  it('calls small enough for one write (headers and message in one buffer) and larger ones interleaved: each gets its own answer', async () => {
    // Sizes around the 16 KiB frame limit and the 64 KiB windows: the small ones take the one-buffer path while the
    // large ones wait for window, and the window each takes is accounted for either way.
    const sizes = Array.from({ length: 400 }, (_, i) => [0, 1, 1200, (16 << 10) - 5, (16 << 10) - 4, 40 << 10][i % 6]!);
    const bodies = sizes.map((n, i) => Buffer.alloc(n, i % 251));
    const got = await Promise.all(bodies.map((b) => channel.call('/t.T/Echo', b)));
    got.forEach((g, i) => assert.ok(g.subarray(g.indexOf('|') + 1).equals(bodies[i]!), `call ${i} (${sizes[i]} B)`));
  });

  it('an answer of 40 MiB, above both receive windows (4 MiB per stream, 16 MiB per connection), arrives whole', async () => {
    const res = await channel.call('/t.T/Big', Buffer.from('40'));
    assert.equal(res.length, 40 << 20);
    assert.equal(res[res.length - 1], 7);
  });

  it('a status in the headers of a trailers-only answer, an HTTP error status, a deadline: gRPC errors; the connection lives on', async () => {
    const fail = (await channel.call('/t.T/Fail', Buffer.alloc(0)).catch((e: GrpcError) => e)) as GrpcError;
    assert.deepEqual([fail.code, fail.details, fail.message], [5, 'not here', '5 NOT_FOUND: not here']);
    const http = (await channel.call('/t.T/Http', Buffer.alloc(0)).catch((e: GrpcError) => e)) as GrpcError;
    assert.deepEqual([http.code, http.details], [14, 'Received HTTP status code 503']);
    const late = (await channel.call('/t.T/Slow', Buffer.from('x'), 50).catch((e: GrpcError) => e)) as GrpcError;
    assert.equal(late.code, 4);
    assert.equal((await channel.call('/t.T/Echo', Buffer.from('after'))).toString().split('|')[1], 'after');
    assert.ok(channel.ready);
  });

  it('GOAWAY from the server: the call in flight finishes, the next one opens a new connection', async () => {
    const before = sessions.length;
    const slow = channel.call('/t.T/Slow', Buffer.from('in flight'));
    await new Promise((r) => setTimeout(r, 50));
    for (const s of sessions.slice(0, before)) if (!s.closed) s.close(); // GOAWAY, then closes when its streams end
    await new Promise((r) => setTimeout(r, 50));
    assert.equal((await channel.call('/t.T/Echo', Buffer.from('new'))).toString().split('|')[1], 'new');
    assert.equal((await slow).toString(), 'in flight');
    assert.equal(sessions.length, before + 1);
  });

  it('nothing listening: UNAVAILABLE, and the channel counts as failing', async () => {
    const gone = new UnaryChannel('127.0.0.1:1', { keepaliveTimeMs: 0, keepaliveTimeoutMs: 0 });
    const err = (await gone.call('/t.T/Echo', Buffer.alloc(0)).catch((e: GrpcError) => e)) as GrpcError;
    assert.deepEqual([err.code, err.details], [14, 'connect ECONNREFUSED 127.0.0.1:1']);
    assert.equal(gone.failing, true);
    gone.close();
  });
});

/** A server that writes the frames a test gives it, after reading the client's preface and first frames. */
function rawServer(onRequest: (sock: net.Socket, streamId: number) => void): Promise<{ target: string; close: () => void }> {
  const socks: net.Socket[] = [];
  const srv = net.createServer((sock) => {
    socks.push(sock);
    let seen = Buffer.alloc(0);
    let settingsSent = false;
    sock.on('data', (d: Buffer) => {
      if (!settingsSent) {
        settingsSent = true;
        sock.write(rawFrame(4, 0, 0, Buffer.alloc(0)));
      }
      seen = Buffer.concat([seen, d]);
      // Skip the preface, then walk frames for HEADERS (type 1) of new streams.
      let p = seen.indexOf('\r\n\r\nSM\r\n\r\n') + 10;
      if (p < 10) return;
      while (seen.length - p >= 9) {
        const len = seen.readUIntBE(p, 3);
        if (seen.length - p < 9 + len) break;
        if (seen[p + 3] === 1) onRequest(sock, seen.readUInt32BE(p + 5) & 0x7fffffff);
        p += 9 + len;
      }
      seen = Buffer.concat([Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n'), seen.subarray(p)]);
    });
    sock.on('error', () => {});
  });
  return new Promise((resolve) =>
    srv.listen(0, '127.0.0.1', () =>
      resolve({
        target: `127.0.0.1:${(srv.address() as AddressInfo).port}`,
        close: () => {
          for (const s of socks) s.destroy();
          srv.close();
        },
      }),
    ),
  );
}

// HPACK: ':status: 200' is static entry 8; 'grpc-status: 0' as a literal with incremental indexing (new name).
const STATUS_200 = Buffer.from([0x88]);
const GRPC_OK = Buffer.concat([Buffer.from([0x40, 11]), Buffer.from('grpc-status'), Buffer.from([1]), Buffer.from('0')]);

describe('etcd client HTTP/2 framing against hand-written frames', () => {
  it('padded frames, a header block split over CONTINUATION, and the dynamic table entry used by the next answer', async () => {
    const srv = await rawServer((sock, id) => {
      const msg = grpcFrame(Buffer.from(`s${id}`));
      const padded = Buffer.concat([Buffer.from([3]), msg, Buffer.alloc(3)]);
      // The first answer adds grpc-status: 0 to the table (index 62); later ones refer to it by index.
      const trailers = id === 1 ? GRPC_OK : Buffer.from([0xbe]);
      sock.write(Buffer.concat([
        rawFrame(1, 0x4 | 0x8, id, Buffer.concat([Buffer.from([2]), STATUS_200, Buffer.alloc(2)])), // HEADERS, PADDED
        rawFrame(0, 0x8, id, padded), // DATA, PADDED
        rawFrame(1, 0x1, id, trailers.subarray(0, 1)), // trailers: END_STREAM, no END_HEADERS
        rawFrame(9, 0x4, id, trailers.subarray(1)), // CONTINUATION, END_HEADERS
      ]));
    });
    const ch = new UnaryChannel(srv.target, { keepaliveTimeMs: 0, keepaliveTimeoutMs: 0 });
    assert.equal((await ch.call('/t.T/A', Buffer.from('x'))).toString(), 's1');
    assert.equal((await ch.call('/t.T/A', Buffer.from('x'))).toString(), 's3');
    ch.close();
    srv.close();
  });

  it('RST_STREAM with an error code: UNAVAILABLE naming it; a call refused by GOAWAY: UNAVAILABLE as REFUSED_STREAM', async () => {
    const srv = await rawServer((sock, id) => {
      const code = Buffer.alloc(4);
      if (id === 1) {
        code.writeUInt32BE(2, 0);
        sock.write(rawFrame(3, 0, id, code));
      } else {
        const goaway = Buffer.alloc(8);
        goaway.writeUInt32BE(1, 0); // last stream processed: 1
        sock.write(rawFrame(7, 0, 0, goaway));
      }
    });
    const ch = new UnaryChannel(srv.target, { keepaliveTimeMs: 0, keepaliveTimeoutMs: 0 });
    const reset = (await ch.call('/t.T/A', Buffer.from('x')).catch((e: GrpcError) => e)) as GrpcError;
    assert.deepEqual([reset.code, reset.details], [14, 'Received RST_STREAM with code 2 (INTERNAL_ERROR)']);
    const refused = (await ch.call('/t.T/A', Buffer.from('x')).catch((e: GrpcError) => e)) as GrpcError;
    assert.deepEqual([refused.code, refused.details], [14, 'Received RST_STREAM with code 7 (REFUSED_STREAM)']);
    ch.close();
    srv.close();
  });

  it('a server that stops answering (no FIN): the keepalive ping times out and the call fails UNAVAILABLE', async () => {
    const srv = await rawServer(() => {}); // takes the request, never answers, never acks a PING
    const ch = new UnaryChannel(srv.target, { keepaliveTimeMs: 100, keepaliveTimeoutMs: 100 });
    const err = (await ch.call('/t.T/A', Buffer.from('x')).catch((e: GrpcError) => e)) as GrpcError;
    assert.deepEqual([err.code, err.details], [14, 'keepalive ping not answered']);
    assert.equal(ch.failing, true);
    ch.close();
    srv.close();
  });

  it('a frame above the size we accept, or a broken header block: the connection fails, its calls UNAVAILABLE', async () => {
    for (const bad of [rawFrame(0, 0, 1, Buffer.alloc(20000)), rawFrame(1, 0x4, 1, Buffer.from([0xff, 0xff]))]) {
      const srv = await rawServer((sock) => sock.write(bad));
      const ch = new UnaryChannel(srv.target, { keepaliveTimeMs: 0, keepaliveTimeoutMs: 0 });
      const err = (await ch.call('/t.T/A', Buffer.from('x')).catch((e: GrpcError) => e)) as GrpcError;
      assert.equal(err.code, 14);
      ch.close();
      srv.close();
    }
  });
});
