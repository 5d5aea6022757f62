/**
 * Graceful shutdown under load (issue 4, "Resilience"): with `--shutdown-delay-duration=1s`, 1,000 open watches
 * (800 multiplexed on two HTTP/2 sessions, 200 on their own HTTP/1.1 connections) and creates running over both
 * transports, SIGTERM must: fail /readyz at once while /livez stays ok, keep serving during the delay, then end
 * every watch cleanly (no ERROR frame, no reset), answer every request already in flight, lose no acknowledged
 * write, and exit 0 within the delay + 5 s.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import type http2 from 'node:http2';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TestServer, sampleEvent } from './helpers/server.ts';
import { clientTls, connectH2, h2Request } from './helpers/client.ts';
import { openH1Watch, openH2Watch, type OpenWatch } from './helpers/watchers.ts';

const NS = 'shutdown';
const BASE = '/apis/events.cluster.io/v1';
const COLLECTION = `${BASE}/namespaces/${NS}/events`;
const DELAY_MS = 1000;
const H2_SESSIONS = 2;
const H2_WATCHES_PER_SESSION = 400;
const H1_WATCHES = 200;
const WRITERS_PER_TRANSPORT = 4;

/**
 * Watch paths in rotation: one in three sees every create (the written namespace, or all namespaces); the rest
 * watch quiet namespaces, so the fan-out stays within what a shared 2-core test machine delivers.
 */
const WATCH_PATHS = [
  `${BASE}/watch/namespaces/${NS}/events`,
  `${BASE}/namespaces/quiet/events?watch=1`,
  `${BASE}/watch/namespaces/quiet/events?labelSelector=app%3Ddemo`,
  `${BASE}/watch/events?allowWatchBookmarks=true`,
  `${BASE}/watch/namespaces/other/events/one`,
  `${BASE}/watch/namespaces/quiet/events?fieldSelector=type%3DWarning`,
];
const SEES_CREATES = new Set([WATCH_PATHS[0], WATCH_PATHS[3]]);

interface Write {
  name: string;
  transport: 'HTTP/1.1' | 'HTTP/2';
  startedAt: number;
  status?: number;
  rv?: number;
  error?: string;
}

describe('graceful shutdown under load', () => {
  it('ends 1,000 watches cleanly, finishes in-flight creates, loses no acknowledged write and exits 0 in time', { timeout: 60_000 }, async (t) => {
    const dataDir = mkdtempSync(join(tmpdir(), 'core-apiserver-shutdown-'));
    const s = new TestServer(dataDir);
    const sessions: http2.ClientHttp2Session[] = [];
    let watchAgent: https.Agent | undefined;
    try {
      await s.start([`--shutdown-delay-duration=${DELAY_MS / 1000}s`]);
      const tls = clientTls(s.kubeconfig);
      watchAgent = new https.Agent({ ...tls, keepAlive: false, maxSockets: Infinity });
      for (let i = 0; i < H2_SESSIONS + 1; i++) sessions.push(await connectH2(s.port, tls));
      const writerSession = sessions[H2_SESSIONS]!;

      const watches: OpenWatch[] = [];
      for (let i = 0; i < H2_SESSIONS * H2_WATCHES_PER_SESSION; i++) watches.push(openH2Watch(sessions[i % H2_SESSIONS]!, WATCH_PATHS[i % WATCH_PATHS.length]!));
      for (let i = 0; i < H1_WATCHES; i++) watches.push(openH1Watch(s.port, watchAgent, WATCH_PATHS[i % WATCH_PATHS.length]!));
      await Promise.all(watches.map((w) => w.opened));
      const notOpen = watches.filter((w) => w.record.status !== 200 || w.record.endedAt !== undefined);
      assert.equal(notOpen.length, 0, `watches that did not open: ${JSON.stringify(notOpen.slice(0, 3).map((w) => w.record))}`);

      // Creates over both transports until the server is gone (a writer stops at its first transport error).
      const writes: Write[] = [];
      let exited = false;
      const writer = async (id: number, transport: Write['transport']) => {
        for (let seq = 0; !exited; seq++) {
          const w: Write = { name: `${transport === 'HTTP/2' ? 'h2' : 'h1'}-w${id}-${seq}`, transport, startedAt: Date.now() };
          writes.push(w);
          try {
            const ev = JSON.stringify(sampleEvent(w.name, NS));
            const headers = { 'content-type': 'application/json' };
            const r =
              transport === 'HTTP/2'
                ? await h2Request(writerSession, { method: 'POST', path: COLLECTION, headers, body: Buffer.from(ev), timeoutMs: 15_000 }).then((x) => {
                    if (x.timedOut || x.aborted) throw new Error(x.timedOut ? 'timed out' : `response broken off (status ${x.status})`);
                    return { status: x.status, body: x.body.toString() };
                  })
                : await s.request('POST', COLLECTION, ev, headers);
            w.status = r.status;
            if (r.status === 201) w.rv = Number(JSON.parse(r.body).metadata.resourceVersion);
            else return;
            await new Promise((r) => setTimeout(r, 5)); // paced: the fan-out, not the writers, is the load
          } catch (e) {
            w.error = (e as Error).message;
            return;
          }
        }
      };
      const writers = [...Array(WRITERS_PER_TRANSPORT).keys()].flatMap((i) => [writer(i, 'HTTP/1.1'), writer(i, 'HTTP/2')]);
      await new Promise((r) => setTimeout(r, 500));

      const proc = s.proc!;
      const exit = new Promise<{ code: number | null; at: number }>((r) => proc.once('exit', (code) => r({ code, at: Date.now() })));
      void exit.then(() => (exited = true));
      const termAt = Date.now();
      proc.kill('SIGTERM');

      // During the delay: /readyz fails on the shutdown check, /livez stays ok, the server keeps serving.
      await new Promise((r) => setTimeout(r, 50));
      const [readyz, livez] = await Promise.all([s.request('GET', '/readyz', undefined, {}, false), s.request('GET', '/livez', undefined, {}, false)]);
      t.diagnostic(`probes answered ${Date.now() - termAt} ms after SIGTERM; ${writes.filter((w) => w.status === 201).length} creates so far`);
      // Watches end only once the delay is over: still open means the probes were answered during the delay.
      assert.ok(watches.every((w) => w.record.endedAt === undefined), 'the delay was over before the probes were answered');
      assert.equal(readyz.status, 500, readyz.body);
      assert.match(readyz.body, /^\[-\]shutdown failed: reason withheld$/m);
      assert.match(readyz.body, /readyz check failed/);
      assert.equal(livez.status, 200, livez.body);

      const { code, at } = await exit;
      await Promise.all(writers);
      await Promise.race([Promise.all(watches.map((w) => w.done)), new Promise((r) => setTimeout(r, 5000))]);
      t.diagnostic(`exit ${code} after ${at - termAt} ms; ${writes.filter((w) => w.status === 201).length} creates acknowledged; watch frames ${watches.reduce((n, w) => n + w.record.frames, 0)}`);
      const busy = watches.filter((w) => SEES_CREATES.has(w.record.path)).map((w) => w.record.frames);
      t.diagnostic(`frames per watch of the written namespace: ${Math.min(...busy)}..${Math.max(...busy)}`);
      assert.equal(code, 0, s.stderr.slice(-2000));
      assert.ok(at - termAt <= DELAY_MS + 5000, `exited ${at - termAt} ms after SIGTERM`);

      // Every watch ended cleanly, after the delay, with well-formed frames and no ERROR.
      const bad = watches.filter((w) => !w.record.clean || w.record.errorFrames.length || w.record.badLines || w.record.endedAt! < termAt + DELAY_MS - 50);
      assert.equal(bad.length, 0, `${bad.length} watches ended badly, e.g. ${JSON.stringify(bad.slice(0, 3).map((w) => ({ ...w.record, endedAfterTerm: w.record.endedAt! - termAt })))}`);
      assert.ok(watches.filter((w) => SEES_CREATES.has(w.record.path)).every((w) => w.record.frames > 0), 'a watch of the written namespace saw no event');

      // Writes: nothing but 201s; everything sent before the delay was over was answered; some were acknowledged
      // during the delay (serving continues).
      const answeredBadly = writes.filter((w) => w.status !== undefined && w.status !== 201);
      assert.equal(answeredBadly.length, 0, `non-201 answers: ${JSON.stringify(answeredBadly.slice(0, 3))}`);
      // Upstream too may drop a request that arrives as the connection closes; half the delay is a safe margin.
      const lost = writes.filter((w) => w.status === undefined && w.startedAt < termAt + DELAY_MS / 2);
      assert.equal(lost.length, 0, `requests sent during the delay got no answer: ${JSON.stringify(lost.slice(0, 3).map((w) => ({ ...w, sentAfterTerm: w.startedAt - termAt })))}`);
      assert.ok(writes.some((w) => w.status === 201 && w.startedAt > termAt + 300), 'no create was served during the shutdown delay');

      // No acknowledged write is lost.
      await s.kill();
      const again = new TestServer(dataDir);
      try {
        await again.start();
        const list = (await again.request('GET', COLLECTION)).json();
        const stored = new Map<string, number>(list.items.map((i: any) => [i.metadata.name, Number(i.metadata.resourceVersion)]));
        const missing = writes.filter((w) => w.status === 201 && stored.get(w.name) !== w.rv);
        assert.equal(missing.length, 0, `acknowledged creates missing after restart: ${missing.slice(0, 5).map((w) => w.name)}`);
        // Unacknowledged creates may or may not have committed; nothing else may exist.
        const sent = new Set(writes.map((w) => w.name));
        assert.ok(list.items.every((i: any) => sent.has(i.metadata.name)));
      } finally {
        await again.kill();
      }
    } finally {
      for (const x of sessions) x.destroy();
      watchAgent?.destroy();
      await s.kill();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
