import { test } from 'node:test';
import assert from 'node:assert/strict';
import { generateName, NAME_SUFFIX_ALPHABET } from './names.ts';

test('generateName: prefix plus five characters of the upstream alphabet', () => {
  const suffix = new RegExp(`^[${NAME_SUFFIX_ALPHABET}]{5}$`);
  const a = generateName('web-');
  assert.ok(a.startsWith('web-'));
  assert.match(a.slice(4), suffix);
  assert.equal(NAME_SUFFIX_ALPHABET, 'bcdfghjklmnpqrstvwxz2456789');
  const names = new Set(Array.from({ length: 50 }, () => generateName('x-')));
  assert.ok(names.size > 45, 'suffixes are random');
});

test('generateName: long prefixes are cut to 58 bytes so the name fits 63', () => {
  const n = generateName('a'.repeat(100));
  assert.equal(n.length, 63);
  assert.ok(n.startsWith('a'.repeat(58)));
  assert.match(n.slice(58), new RegExp(`^[${NAME_SUFFIX_ALPHABET}]{5}$`));
  assert.equal(generateName('').length, 5);
});
