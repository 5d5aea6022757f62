import assert from 'node:assert/strict';
import { once } from 'node:events';
import http from 'node:http';
import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import { CounterSeries, HistogramSeries } from '../../metrics/metric.ts';
import { ChunkedSocketTarget, chunkOf, FrameSink, frameTargetOf, type FrameTarget } from './watch-sink.ts';

const tick = () => new Promise<void>((r) => setImmediate(r));

/** A Writable that records how chunks reach the transport; `stuck` never completes a write (a client not reading). */
function recorder(o: { stuck?: boolean; highWaterMark?: number } = {}) {
  const calls: string[][] = [];
  const w = new Writable({
    highWaterMark: o.highWaterMark ?? 16 * 1024,
    write(chunk: Buffer, _enc, cb) {
      calls.push([chunk.toString()]);
      if (!o.stuck) cb();
    },
    writev(chunks, cb) {
      calls.push(chunks.map((c) => (c.chunk as Buffer).toString()));
      if (!o.stuck) cb();
    },
  });
  return { w, calls };
}

describe('FrameSink', () => {
  it('writes the frames queued in one tick as one writev, in order, and a lone frame with write', async () => {
    const { w, calls } = recorder();
    const sink = new FrameSink(w, 1 << 20, () => assert.fail('not slow'));
    sink.push(Buffer.from('a'));
    sink.push(Buffer.from('b'));
    sink.push(Buffer.from('c'));
    assert.deepEqual(calls, [], 'nothing is written before the tick ends');
    assert.equal(sink.pending, true);
    await tick();
    sink.push(Buffer.from('d'));
    await tick();
    assert.deepEqual(calls, [['a', 'b', 'c'], ['d']]);
    assert.equal(sink.pending, false);
  });

  it('counts and sizes every frame it writes (apiserver_watch_events_*), not those dropped, and says when the client is stuck', async () => {
    const { w } = recorder({ stuck: true, highWaterMark: 4 });
    const events = { count: new CounterSeries(), sizes: new HistogramSeries([1024, 2048]) };
    const why: boolean[] = [];
    const sink = new FrameSink(w, 3000, (blocked) => why.push(blocked), events);
    sink.push(Buffer.alloc(100));
    sink.push(Buffer.alloc(1500));
    await tick();
    assert.equal(events.count.value, 2);
    assert.equal(events.sizes.count, 2);
    assert.equal(events.sizes.sum, 1600);
    sink.push(Buffer.alloc(2000));
    await tick();
    assert.deepEqual(why, [true], 'past the bound: a watcher that does not read');
    assert.equal(events.count.value, 3, 'written, then found past the bound');
    sink.push(Buffer.alloc(10));
    await tick();
    assert.equal(events.count.value, 3, 'closed: nothing more is written or counted');
  });

  it('flushes every sink that got frames with one shared flush', async () => {
    const a = recorder();
    const b = recorder();
    const sa = new FrameSink(a.w, 1 << 20, () => {});
    const sb = new FrameSink(b.w, 1 << 20, () => {});
    const shared = Buffer.from('{"type":"ADDED"}\n');
    sa.push(shared);
    sb.push(shared);
    sa.push(Buffer.from('x'));
    await Promise.resolve();
    await Promise.resolve();
    assert.deepEqual(a.calls, [['{"type":"ADDED"}\n', 'x']]);
    assert.deepEqual(b.calls, [['{"type":"ADDED"}\n']]);
  });

  it('keeps writing while earlier writes are unsent and ends the watcher once unsent bytes pass the bound', async () => {
    const { w, calls } = recorder({ stuck: true });
    let ended = 0;
    const sink = new FrameSink(w, 10_000, () => ended++);
    const frame = Buffer.alloc(1000, 'f');
    for (let i = 0; i < 10; i++) {
      sink.push(frame);
      await tick();
    }
    assert.equal(ended, 0, '10,000 unsent bytes are within the bound');
    assert.equal(w.writableLength, 10_000);
    sink.push(frame);
    await tick();
    assert.equal(ended, 1);
    sink.push(frame);
    await tick();
    assert.equal(ended, 1, 'ended once');
    assert.equal(w.writableLength, 11_000, 'nothing is written after the end');
    assert.equal(calls.length, 1, 'the transport still holds only its first write');
  });

  it('ends the watcher when one tick queues more than the bound, without writing it', async () => {
    const { w, calls } = recorder();
    let ended = 0;
    const sink = new FrameSink(w, 10_000, () => ended++);
    sink.push(Buffer.alloc(6000));
    sink.push(Buffer.alloc(6000));
    assert.equal(ended, 1);
    assert.equal(sink.queuedBytes, 0);
    await tick();
    assert.deepEqual(calls, []);
  });

  it('flush reports the response past its high-water mark, so an initial state can wait for drain', () => {
    const { w } = recorder({ stuck: true, highWaterMark: 100 });
    const sink = new FrameSink(w, 1 << 20, () => {});
    sink.push(Buffer.alloc(60));
    assert.equal(sink.flush(), true);
    sink.push(Buffer.alloc(60));
    sink.push(Buffer.alloc(60));
    assert.equal(sink.flush(), false);
    assert.equal(sink.flush(), true, 'nothing queued: nothing to wait for');
  });

  it('ends a watcher whose response throws, and still flushes the others', async () => {
    const ok = recorder();
    let ended = 0;
    const broken: FrameTarget = {
      write: () => {
        throw new Error('gone');
      },
      cork: () => {},
      uncork: () => {},
      writableLength: 0,
    };
    const sb = new FrameSink(broken, 1 << 20, () => ended++);
    const so = new FrameSink(ok.w, 1 << 20, () => assert.fail('not this one'));
    sb.push(Buffer.from('a'));
    so.push(Buffer.from('a'));
    await tick();
    assert.equal(ended, 1);
    assert.deepEqual(ok.calls, [['a']]);
    sb.push(Buffer.from('b'));
    await tick();
    assert.equal(ended, 1);
  });

  it('drops queued frames once closed', async () => {
    const { w, calls } = recorder();
    const sink = new FrameSink(w, 1 << 20, () => {});
    sink.push(Buffer.from('a'));
    sink.close();
    sink.push(Buffer.from('b'));
    await tick();
    assert.deepEqual(calls, []);
    assert.equal(sink.flush(), false);
  });

  it('over HTTP/2, ends a stream whose client stops reading while its sibling on the session gets every frame', async () => {
    const sinks: FrameSink[] = [];
    const ended: boolean[] = [];
    const server = http2.createServer((_req, res) => {
      res.writeHead(200);
      const i = sinks.length;
      ended.push(false);
      sinks.push(new FrameSink(res as unknown as FrameTarget, 256 * 1024, () => ((ended[i] = true), res.end())));
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const client = http2.connect(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    try {
      const reader = client.request({ ':path': '/' });
      let got = 0;
      reader.on('data', (c: Buffer) => (got += c.length));
      await once(reader, 'response');
      const stalled = client.request({ ':path': '/' });
      await once(stalled, 'response');
      stalled.pause();
      const frame = Buffer.alloc(16 * 1024, 'w');
      let pushed = 0;
      for (let i = 0; i < 200 && !ended[1]; i++) {
        for (const s of sinks) s.push(frame);
        pushed++;
        await new Promise((r) => setTimeout(r, 2));
      }
      assert.equal(ended[1], true, 'the stalled watcher is ended');
      assert.equal(ended[0], false, 'the reading watcher is not');
      assert.ok(pushed < 200);
      while (got < pushed * frame.length) await tick();
      assert.equal(got, pushed * frame.length);
    } finally {
      client.destroy();
      server.close();
    }
  });

  it('over HTTP/1.1, ends a watcher whose client stops reading once the socket and its buffer are full', async () => {
    let ended = false;
    let sink: FrameSink | undefined;
    const server = http.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.flushHeaders();
      sink = new FrameSink(res, 1 << 20, () => ((ended = true), res.destroy()));
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    // A raw client that sends the request and then never reads.
    const sock = connect((server.address() as AddressInfo).port, '127.0.0.1');
    sock.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
    sock.pause();
    try {
      while (!sink) await tick();
      const frame = Buffer.alloc(64 * 1024, 'w');
      for (let i = 0; i < 4096 && !ended; i++) {
        sink.push(frame);
        await tick();
      }
      assert.equal(ended, true, 'ended before 256 MB were offered');
    } finally {
      sock.destroy();
      server.close();
    }
  });
});

describe('frameTargetOf', () => {
  /** An HTTP/1.1 server whose handler flushes headers, picks the target and writes `frames` through a sink. */
  async function h1(frames: string[]) {
    const targets: unknown[] = [];
    const server = http.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.flushHeaders();
      const target = frameTargetOf(res as unknown as Parameters<typeof frameTargetOf>[0]);
      targets.push(target);
      const sink = new FrameSink(target, 1 << 20, () => res.destroy());
      for (const f of frames) sink.push(Buffer.from(f));
      setImmediate(() => {
        sink.push(Buffer.from('last\n'));
        setImmediate(() => (sink.flush(), res.end()));
      });
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    return { server, targets, port: (server.address() as AddressInfo).port };
  }

  it('writes HTTP/1.1 frames as prebuilt chunks to the socket; the body parses and the connection is reused', async () => {
    const { server, targets, port } = await h1(['{"a":1}\n', '{"b":2}\n']);
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const bodies: string[] = [];
      const sockets = new Set<unknown>();
      for (let i = 0; i < 2; i++) {
        const res = await new Promise<http.IncomingMessage>((resolve) => http.get({ port, agent, host: '127.0.0.1' }, resolve));
        sockets.add(res.socket);
        assert.equal(res.headers['transfer-encoding'], 'chunked');
        let body = '';
        for await (const c of res) body += String(c);
        bodies.push(body);
      }
      assert.deepEqual(bodies, ['{"a":1}\n{"b":2}\nlast\n', '{"a":1}\n{"b":2}\nlast\n']);
      assert.equal(sockets.size, 1, 'the keep-alive connection served both');
      assert.ok(targets.every((t) => t instanceof ChunkedSocketTarget));
    } finally {
      agent.destroy();
      server.close();
    }
  });

  it('falls back to the response for an HTTP/1.0 client (no chunked encoding)', async () => {
    const { server, targets, port } = await h1(['x\n']);
    const sock = connect(port, '127.0.0.1');
    try {
      sock.write('GET / HTTP/1.0\r\nHost: x\r\n\r\n');
      let raw = '';
      sock.on('data', (c: Buffer) => (raw += c.toString()));
      await once(sock, 'end');
      assert.ok(!(targets[0] instanceof ChunkedSocketTarget));
      assert.ok(raw.endsWith('\r\n\r\nx\nlast\n'), raw);
    } finally {
      sock.destroy();
      server.close();
    }
  });

  it('writes HTTP/2 frames to the response stream itself', async () => {
    let target: unknown;
    let stream: unknown;
    const server = http2.createServer((_req, res) => {
      res.writeHead(200);
      stream = res.stream;
      target = frameTargetOf(res as unknown as Parameters<typeof frameTargetOf>[0]);
      const sink = new FrameSink(target as FrameTarget, 1 << 20, () => res.destroy());
      sink.push(Buffer.from('one\n'));
      sink.push(Buffer.from('two\n'));
      setImmediate(() => res.end());
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const client = http2.connect(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    try {
      const req = client.request({ ':path': '/' });
      let body = '';
      for await (const c of req) body += String(c);
      assert.equal(body, 'one\ntwo\n');
      assert.equal(target, stream);
    } finally {
      client.destroy();
      server.close();
    }
  });

  it('builds one chunk per frame, shared by every watcher', () => {
    const f = Buffer.from('{"x":1}\n');
    assert.equal(chunkOf(f).toString(), '8\r\n{"x":1}\n\r\n');
    assert.equal(chunkOf(f), chunkOf(f));
  });

  it('over HTTP/1.1 through the socket, still ends a watcher whose client stops reading', async () => {
    let ended = false;
    let sink: FrameSink | undefined;
    let target: unknown;
    const server = http.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.flushHeaders();
      target = frameTargetOf(res as unknown as Parameters<typeof frameTargetOf>[0]);
      sink = new FrameSink(target as FrameTarget, 1 << 20, () => ((ended = true), res.destroy()));
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const sock = connect((server.address() as AddressInfo).port, '127.0.0.1');
    sock.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
    sock.pause();
    try {
      while (!sink) await tick();
      assert.ok(target instanceof ChunkedSocketTarget);
      for (let i = 0; i < 4096 && !ended; i++) {
        sink.push(Buffer.alloc(64 * 1024 + i, 'w'));
        await tick();
      }
      assert.equal(ended, true, 'ended before 256 MB were offered');
    } finally {
      sock.destroy();
      server.close();
    }
  });
});
