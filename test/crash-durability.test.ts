/**
 * Crash durability (issue 4, "Resilience"): the server is SIGKILLed repeatedly while 32 clients create Events, and
 * restarted on the same data dir. After every restart each acknowledged create is still there with the
 * resourceVersion and uid it was acknowledged with, nothing exists twice or unasked-for, resourceVersions keep
 * growing across restarts, and the database file passes `PRAGMA integrity_check` after each crash.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { TEST_STORAGE, TestServer, sampleEvent } from './helpers/server.ts';

const NS = 'crash';
const COLLECTION = `/apis/events.cluster.io/v1/namespaces/${NS}/events`;
const CREATORS = 32;
const ROUNDS = 3;
const SEED = Number(process.env.CRASH_SEED ?? Date.now() % 1_000_000);

/** What one creator (one sequential client) sent in a round: at most its last create is unanswered at the kill. */
interface Creator {
  /** Fixed name prefix, or generateName prefix when `generated`. */
  prefix: string;
  generated: boolean;
  acked: Map<string, { rv: number; uid: string }>;
  /** Names sent with a fixed name but not acknowledged (the one in flight at the kill, if any). */
  unackedNames: string[];
  /** generateName creates not acknowledged (their names are unknown to us). */
  unackedGenerated: number;
}

function integrityCheck(dataDir: string): string {
  const db = new Database(join(dataDir, 'events.db'), { readonly: true, fileMustExist: true });
  try {
    return String(db.pragma('integrity_check', { simple: true }));
  } finally {
    db.close();
  }
}

/** Runs the creators until `stop` is set; a failed request ends that creator (the server is gone). */
async function runCreators(s: TestServer, round: number, stopFlag: { stop: boolean }): Promise<Creator[]> {
  const creators: Creator[] = Array.from({ length: CREATORS }, (_, c) => ({
    prefix: `r${round}-c${c}-`,
    generated: c % 4 === 3, // every fourth creator lets the server pick names (generateName)
    acked: new Map(),
    unackedNames: [],
    unackedGenerated: 0,
  }));
  await Promise.all(
    creators.map(async (cr) => {
      for (let seq = 0; !stopFlag.stop; seq++) {
        const ev = sampleEvent(cr.generated ? '' : `${cr.prefix}${seq}`, NS, { note: `round ${round} seq ${seq}` });
        if (cr.generated) (ev.metadata as Record<string, unknown>).generateName = cr.prefix;
        try {
          const r = await s.request('POST', COLLECTION, ev);
          assert.equal(r.status, 201, r.body);
          const m = r.json().metadata;
          cr.acked.set(m.name, { rv: Number(m.resourceVersion), uid: m.uid });
        } catch (e) {
          if (e instanceof assert.AssertionError) throw e;
          if (cr.generated) cr.unackedGenerated++;
          else cr.unackedNames.push(`${cr.prefix}${seq}`);
          return;
        }
      }
    }),
  );
  return creators;
}

/** Checks the stored state against everything acknowledged so far; returns the highest resourceVersion seen. */
async function verify(s: TestServer, rounds: Creator[][], floorRV: number): Promise<number> {
  const list = await s.request('GET', COLLECTION);
  assert.equal(list.status, 200);
  const body = list.json();
  const listRV = Number(body.metadata.resourceVersion);
  const items: { metadata: { name: string; uid: string; resourceVersion: string } }[] = body.items;
  const names = new Set(items.map((i) => i.metadata.name));
  assert.equal(names.size, items.length, 'duplicate names in the list');
  assert.equal(new Set(items.map((i) => i.metadata.uid)).size, items.length, 'duplicate uids in the list');
  const maxItemRV = Math.max(0, ...items.map((i) => Number(i.metadata.resourceVersion)));
  assert.ok(listRV >= maxItemRV, `list RV ${listRV} < item RV ${maxItemRV}`);
  assert.ok(listRV >= floorRV, `list RV ${listRV} went below the highest acknowledged RV ${floorRV}`);

  const creators = rounds.flat();
  let expectedMin = 0;
  let expectedMax = 0;
  for (const cr of creators) {
    const mine = items.filter((i) => i.metadata.name.startsWith(cr.prefix));
    // Every object of this creator was acked, or is its one unanswered create that committed anyway.
    const extra = mine.filter((i) => !cr.acked.has(i.metadata.name));
    if (cr.generated) assert.ok(extra.length <= cr.unackedGenerated, `${cr.prefix}: ${extra.length} unasked-for generated objects`);
    else for (const i of extra) assert.ok(cr.unackedNames.includes(i.metadata.name), `${i.metadata.name} was never sent`);
    expectedMin += cr.acked.size;
    expectedMax += cr.acked.size + (cr.generated ? cr.unackedGenerated : cr.unackedNames.length);
  }
  assert.ok(items.length >= expectedMin && items.length <= expectedMax, `list has ${items.length}, expected ${expectedMin}..${expectedMax}`);

  // GET every acknowledged object: present, with the acknowledged identity and version.
  const acked = creators.flatMap((cr) => [...cr.acked]);
  for (let i = 0; i < acked.length; i += 64) {
    await Promise.all(
      acked.slice(i, i + 64).map(async ([name, want]) => {
        const r = await s.request('GET', `${COLLECTION}/${name}`);
        assert.equal(r.status, 200, `acknowledged ${name} lost: ${r.body}`);
        const m = r.json().metadata;
        assert.equal(Number(m.resourceVersion), want.rv, name);
        assert.equal(m.uid, want.uid, name);
      }),
    );
  }
  return Math.max(listRV, maxItemRV);
}

describe('crash durability', () => {
  it(`keeps every acknowledged create through ${ROUNDS} SIGKILLs under ${CREATORS} concurrent creators (seed ${SEED})`, { timeout: 90_000 }, async (t) => {
    const dataDir = mkdtempSync(join(tmpdir(), 'core-apiserver-crash-'));
    const loadMs = fc.sample(fc.integer({ min: 500, max: 1500 }), { seed: SEED, numRuns: ROUNDS });
    const s = new TestServer(dataDir);
    const rounds: Creator[][] = [];
    let highestRV = 0;
    try {
      for (let round = 0; round < ROUNDS; round++) {
        await s.start();
        highestRV = await verify(s, rounds, highestRV);
        const stopFlag = { stop: false };
        const load = runCreators(s, round, stopFlag);
        await new Promise((r) => setTimeout(r, loadMs[round]));
        await s.kill();
        stopFlag.stop = true;
        const creators = await load;
        rounds.push(creators);
        const acks = creators.flatMap((cr) => [...cr.acked.values()].map((a) => a.rv));
        assert.ok(acks.length > 0, `round ${round}: no create was acknowledged in ${loadMs[round]} ms`);
        // New writes are numbered above everything observed before this round's start.
        assert.ok(Math.min(...acks) > highestRV, `round ${round}: RV ${Math.min(...acks)} not above ${highestRV}`);
        for (const cr of creators) {
          const rvs = [...cr.acked.values()].map((a) => a.rv);
          for (let i = 1; i < rvs.length; i++) assert.ok(rvs[i]! > rvs[i - 1]!, `${cr.prefix}: RVs not increasing`);
        }
        highestRV = Math.max(highestRV, ...acks);
        const unacked = creators.reduce((n, cr) => n + cr.unackedNames.length + cr.unackedGenerated, 0);
        t.diagnostic(`round ${round}: killed after ${loadMs[round]} ms, ${acks.length} creates acknowledged, ${unacked} unanswered`);
        // On etcd the server keeps nothing of its own on disk to check: etcd's data is etcd's.
        if (TEST_STORAGE === 'sqlite') assert.equal(integrityCheck(dataDir), 'ok', `integrity_check after crash ${round}`);
      }
      await s.start();
      const seen = await verify(s, rounds, highestRV);
      const after = await s.request('POST', COLLECTION, sampleEvent('after-crashes', NS));
      assert.equal(after.status, 201, after.body);
      assert.ok(Number(after.json().metadata.resourceVersion) > seen, 'RV after the last restart must exceed all earlier ones');
      assert.equal(await s.stop('SIGTERM'), 0);
      if (TEST_STORAGE === 'sqlite') assert.equal(integrityCheck(dataDir), 'ok', 'integrity_check after a clean stop');
    } finally {
      await s.kill();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
