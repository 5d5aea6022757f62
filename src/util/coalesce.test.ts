import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CoalescedPass } from './coalesce.ts';

test('calls during a pass become one more pass; none after it ends', async () => {
  let passes = 0;
  let release!: () => void;
  const p = new CoalescedPass(async () => {
    passes++;
    if (passes === 1) await new Promise<void>((r) => (release = r));
  });
  const first = p.run();
  await p.run();
  await p.run();
  release();
  await first;
  assert.equal(passes, 2);
  await p.run();
  assert.equal(passes, 3);
});
