import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import { BidiStream } from './bidi.ts';
import { UnaryChannel, type GrpcError } from './unary.ts';

type Msg = { n: number };
const enc = (m: Msg) => Buffer.from(JSON.stringify(m));
const dec = (b: Buffer): Msg => JSON.parse(b.toString());
const frame = (m: Msg) => {
  const body = enc(m);
  const f = Buffer.alloc(5 + body.length);
  f.writeUInt32BE(body.length, 1);
  body.copy(f, 5);
  return f;
};

const sessions = new Map<http2.Http2Server, http2.ServerHttp2Session[]>();

/**
 * A gRPC server speaking the wire format by hand, so the test controls how messages fall into DATA frames: each
 * path is one behaviour.
 */
function server(): http2.Http2Server {
  const srv = http2.createServer();
  srv.on('session', (s) => sessions.set(srv, [...(sessions.get(srv) ?? []), s]));
  srv.on('stream', (s, headers) => {
    s.on('error', () => {}); // the resets the cases make
    switch (headers[':path']) {
      case '/t.T/Split': {
        // Three messages: the first two in one write, the third split over two writes 20 ms apart.
        s.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true });
        s.once('wantTrailers', () => s.sendTrailers({ 'grpc-status': '0' }));
        const all = Buffer.concat([frame({ n: 1 }), frame({ n: 2 }), frame({ n: 3 })]);
        const cut = all.length - 4;
        s.write(all.subarray(0, cut));
        setTimeout(() => {
          s.end(all.subarray(cut));
        }, 20);
        return;
      }
      case '/t.T/Echo': {
        // Answers each message it gets with n+100, until the client cancels.
        s.respond({ ':status': 200, 'content-type': 'application/grpc' });
        s.on('data', (d: Buffer) => s.write(frame({ n: dec(d.subarray(5)).n + 100 })));
        return;
      }
      case '/t.T/Big': {
        // A 3 MB message (as a mass delete's watch event) cut inside its 5-byte prefix and then in 16 KiB pieces,
        // its last piece carrying the start of a small one, whose rest comes in the end.
        s.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true });
        s.once('wantTrailers', () => s.sendTrailers({ 'grpc-status': '0' }));
        const big = frame({ n: 7, pad: 'x'.repeat(3 << 20) } as Msg);
        const all = Buffer.concat([big, frame({ n: 8 })]);
        const cuts = [2, ...Array.from({ length: Math.ceil((big.length - 2) / 16384) }, (_, i) => Math.min(2 + (i + 1) * 16384, big.length + 3))];
        let at = 0;
        const next = () => {
          const cut = cuts.shift();
          if (cut === undefined) {
            s.end(all.subarray(at));
            return;
          }
          s.write(all.subarray(at, cut));
          at = cut;
          setImmediate(next);
        };
        next();
        return;
      }
      case '/t.T/Fail':
        s.respond({ ':status': 200, 'content-type': 'application/grpc', 'grpc-status': '9', 'grpc-message': 'no%20way' }, { endStream: true });
        return;
      case '/t.T/Reset':
        s.respond({ ':status': 200, 'content-type': 'application/grpc' });
        s.write(frame({ n: 1 }));
        setTimeout(() => s.close(http2.constants.NGHTTP2_INTERNAL_ERROR), 20);
        return;
    }
  });
  return srv;
}

describe('BidiStream: a gRPC stream on an HTTP/2 stream', () => {
  const srv = server();
  let channel: UnaryChannel;
  before(async () => {
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
    channel = new UnaryChannel(`127.0.0.1:${(srv.address() as AddressInfo).port}`, { keepaliveTimeMs: 0, keepaliveTimeoutMs: 0 });
  });
  after(() => {
    channel.close();
    srv.close();
  });

  const open = (path: string) => new BidiStream<Msg, Msg>((h) => channel.openStream(path, h), enc, dec);
  const outcome = (st: BidiStream<Msg, Msg>) =>
    new Promise<{ got: number[]; err?: GrpcError }>((resolve) => {
      const got: number[] = [];
      st.on('data', (m) => got.push(m.n));
      st.on('error', (err) => resolve({ got, err }));
      st.on('end', () => resolve({ got }));
    });

  it('reassembles messages split over DATA frames and several in one, then ends on grpc-status 0', async () => {
    assert.deepEqual(await outcome(open('/t.T/Split')), { got: [1, 2, 3] });
  });

  it('reassembles a message of megabytes cut inside its prefix and over many frames', async () => {
    assert.deepEqual(await outcome(open('/t.T/Big')), { got: [7, 8] });
  });

  it('sends messages both ways; cancel ends it with one CANCELLED error', async () => {
    const st = open('/t.T/Echo');
    const got: number[] = [];
    const errors: GrpcError[] = [];
    st.on('error', (e) => errors.push(e));
    const two = new Promise<void>((resolve) =>
      st.on('data', (m) => {
        got.push(m.n);
        if (got.length === 2) resolve();
      }),
    );
    st.write({ n: 1 });
    st.write({ n: 2 });
    await two;
    st.cancel();
    assert.equal(st.write({ n: 3 }), false, 'no writes after cancel');
    assert.deepEqual(got, [101, 102]);
    assert.deepEqual(errors.map((e) => e.code), [1]);
  });

  it("a trailers-only answer with a status: that code and the server's (percent-decoded) message", async () => {
    const { got, err } = await outcome(open('/t.T/Fail'));
    assert.deepEqual(got, []);
    assert.equal(err?.code, 9);
    assert.equal(err?.details, 'no way');
  });

  it("a stream the server ends after a message without a status (node's close(code): END_STREAM, then RST_STREAM): the message, then INTERNAL", async () => {
    const { got, err } = await outcome(open('/t.T/Reset'));
    assert.deepEqual(got, [1]);
    assert.equal(err?.code, 13);
    assert.match(err?.details ?? '', /without a status/);
  });

  it('the connection gone (the member died): UNAVAILABLE, "Connection dropped"', async () => {
    const gone = server();
    await new Promise<void>((r) => gone.listen(0, '127.0.0.1', r));
    const ch = new UnaryChannel(`127.0.0.1:${(gone.address() as AddressInfo).port}`, { keepaliveTimeMs: 0, keepaliveTimeoutMs: 0 });
    const st = new BidiStream<Msg, Msg>((h) => ch.openStream('/t.T/Echo', h), enc, dec);
    const result = outcome(st);
    const first = new Promise<void>((r) => st.once('data', () => r()));
    st.write({ n: 1 });
    await first;
    // Every session the server holds, torn down at once as a killed process's sockets are.
    for (const s of sessions.get(gone) ?? []) s.destroy();
    const { err } = await result;
    assert.equal(err?.code, 14);
    assert.equal(err?.details, 'Connection dropped');
    ch.close();
    gone.close();
  });
});
