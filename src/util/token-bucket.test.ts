import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { TokenBucket } from './token-bucket.ts';

function manualClock(start = 1_000) {
  let now = start;
  return { clock: () => now, advance: (ms: number) => void (now += ms), set: (ms: number) => void (now = ms) };
}

const takeAll = (b: TokenBucket) => {
  let n = 0;
  while (b.tryAccept()) n++;
  return n;
};

describe('TokenBucket', () => {
  it('starts full: burst tokens at once, then refuses', () => {
    const c = manualClock();
    const b = new TokenBucket(1, 5, c.clock);
    assert.equal(takeAll(b), 5);
    assert.equal(b.tryAccept(), false);
  });

  it('refills at qps tokens a second, continuously', () => {
    const c = manualClock();
    const b = new TokenBucket(2, 3, c.clock);
    assert.equal(takeAll(b), 3);
    c.advance(499);
    assert.equal(b.tryAccept(), false, 'just under half a second: less than one token');
    c.advance(1);
    assert.equal(b.tryAccept(), true, 'half a second at 2 qps: one token');
    assert.equal(b.tryAccept(), false);
    c.advance(1000);
    assert.equal(takeAll(b), 2);
  });

  it('never holds more than burst, however long it rested', () => {
    const c = manualClock();
    const b = new TokenBucket(10, 4, c.clock);
    c.advance(3_600_000);
    assert.equal(takeAll(b), 4);
  });

  it('a refusal does not delay the refill (x/time/rate keeps its state on a refused reservation)', () => {
    const c = manualClock();
    const b = new TokenBucket(1, 1, c.clock);
    assert.equal(b.tryAccept(), true);
    for (let i = 0; i < 9; i++) {
      c.advance(100);
      assert.equal(b.tryAccept(), false);
    }
    c.advance(100);
    assert.equal(b.tryAccept(), true, 'one second after the last granted token');
  });

  it('a clock that goes backwards grants nothing extra', () => {
    const c = manualClock(10_000);
    const b = new TokenBucket(1, 1, c.clock);
    assert.equal(b.tryAccept(), true);
    c.set(5_000);
    assert.equal(b.tryAccept(), false);
    c.set(10_999);
    assert.equal(b.tryAccept(), false, 'the last grant still stands at 10 s');
    c.set(11_000);
    assert.equal(b.tryAccept(), true, 'one second after the last grant');
  });

  it('keeps fractions of a token between calls', () => {
    const c = manualClock();
    const b = new TokenBucket(3, 1, c.clock);
    assert.equal(b.tryAccept(), true);
    c.advance(200);
    assert.equal(b.tryAccept(), false);
    c.advance(200);
    assert.equal(b.tryAccept(), true, '0.4 s at 3 qps is 1.2 tokens');
  });
});
