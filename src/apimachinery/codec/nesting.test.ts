import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { stringify } from 'yaml';
import { parseGoJson } from '../gojson-decode.ts';
import { jsonNestingDepth, MAX_NESTING_DEPTH, syntaxTreeDepth, valueDepth, valueDepthExceeds, yamlNestingBound, yamlNestingDepth } from './nesting.ts';
import { parseYAMLBody } from './yamlbody.ts';

test('the JSON scan counts brackets outside strings and stops past the limit', () => {
  assert.equal(jsonNestingDepth('{"a":[1,{"b":"[[[{{{\\"[["}]}'), 3);
  assert.equal(jsonNestingDepth(Buffer.from('[[[]],[[[]]]]')), 4);
  assert.equal(jsonNestingDepth('x]]]][['), 2); // invalid text still gets a bound
  assert.equal(jsonNestingDepth('['.repeat(1_000_000), 100), 101);
});

test('valueDepth measures parsed values iteratively, aliases included', () => {
  assert.equal(valueDepth(1), 0);
  assert.equal(valueDepth({ a: [1, { b: {} }] }), 4);
  let v: unknown = {};
  for (let i = 0; i < 200_000; i++) v = [v];
  assert.equal(valueDepth(v, 100), 101);
  assert.ok(valueDepthExceeds(v));
  const shared = { x: { y: {} } };
  assert.equal(valueDepth({ a: shared, b: [shared] }), 5);
});

test('the YAML bound is never below what the parser builds, for any token soup', () => {
  // Well-formed and broken pieces alike: error recovery nests too (`"x"a: b`, `- : : a:` in a flow).
  const piece = fc.constantFrom(
    '- ', '? ', ': ', 'a: ', 'a', '[', ']', '{', '}', ', ', ',', '\n', '\r\n', '  ', ' ', '\t', '"x"', "'y'", '"x"a',
    '&a ', '*a', '*a: ', '!t ', '! ', '|\n', '>\n', '# c\n', '---\n', '...\n', '-', ':', '?', 'k:', 'x\n  - ', '\n- ',
    '\n  ', '\n    ', '- - ', '[a, ', '{a: ', 'a:\n', '\n-', '? - ', '- ? ', '%YAML 1.1\n',
  );
  fc.assert(
    fc.property(fc.array(piece, { maxLength: 80 }), (pieces) => {
      const text = pieces.join('');
      assert.ok(syntaxTreeDepth(text) <= yamlNestingBound(text, Infinity), JSON.stringify(text));
    }),
    { numRuns: 20_000, seed: 8 },
  );
});

test('the YAML bound stays close to the real depth of Events in any style', () => {
  const event = {
    apiVersion: 'events.cluster.io/v1',
    metadata: { name: 'x', labels: { a: 'b' }, managedFields: [{ manager: 'm', fieldsV1: { 'f:metadata': { 'f:labels': { 'f:a': {} } } } }] },
    related: { kind: 'Pod' },
  };
  for (const indent of [2, 4, 8]) {
    for (const text of [stringify(event, { indent }), stringify(event, { indent, indentSeq: false }), JSON.stringify(event, null, indent)]) {
      assert.equal(syntaxTreeDepth(text), 8);
      assert.ok(yamlNestingBound(text) <= 20, `${yamlNestingBound(text)}: ${text}`);
    }
  }
});

test('YAML nested past the limit is refused before the parser sees it, in every notation', () => {
  const tooDeep = { message: 'yaml: exceeded max depth of 100' };
  // Issue 8's reproduction: flow sequences with a multi-line string at the bottom.
  for (const n of [101, 1200, 100_000]) assert.throws(() => parseYAMLBody('['.repeat(n) + '"x\ny"'), tooDeep);
  const block = Array.from({ length: 101 }, (_, i) => `${' '.repeat(i)}a:`).join('\n') + ' 1\n';
  assert.throws(() => parseYAMLBody(block), tooDeep);
  assert.throws(() => parseYAMLBody('- '.repeat(101) + 'x'), tooDeep);
  assert.throws(() => parseYAMLBody('a: '.repeat(200) + 'x'), tooDeep);
  // At the limit it parses.
  const atLimit = '['.repeat(MAX_NESTING_DEPTH) + ']'.repeat(MAX_NESTING_DEPTH);
  let v = parseYAMLBody(atLimit).value;
  assert.equal(valueDepth(v), MAX_NESTING_DEPTH);
  // A block ladder of 100 maps: its bound (202) is past the limit, so the syntax tree is measured: exactly 100.
  const ladder = Array.from({ length: 100 }, (_, i) => `${' '.repeat(i)}a:`).join('\n') + ' 1\n';
  assert.ok(yamlNestingBound(ladder) > MAX_NESTING_DEPTH);
  assert.equal(yamlNestingDepth(ladder), 100);
  assert.equal(valueDepth(parseYAMLBody(ladder).value), 100);
});

test('YAML aliases that nest past the limit are refused after composing', () => {
  // Each anchor nests the previous one 40 levels deeper: three lines of depth 41 compose to depth 121.
  const nest = (inner: string) => '['.repeat(40) + inner + ']'.repeat(40);
  const lines = [`a: &a ${nest('x')}`, `b: &b ${nest('*a')}`, `c: ${nest('*b')}`];
  assert.throws(() => parseYAMLBody(lines.join('\n')), { message: 'yaml: exceeded max depth of 100' });
  assert.equal(valueDepth(parseYAMLBody(lines.slice(0, 2).join('\n')).value), 81);
});

test('the Go-semantics JSON reader refuses nesting past the limit with its own recursion unused', () => {
  assert.throws(() => parseGoJson(Buffer.from('['.repeat(101) + ']'.repeat(101))), { message: "invalid character '[' exceeded max depth of 100" });
  assert.throws(() => parseGoJson(Buffer.from('{"a":'.repeat(1_000_000))), /exceeded max depth of 100$/);
  assert.equal(parseGoJson(Buffer.from('['.repeat(100) + ']'.repeat(100))).kind, 'array');
});

test('YAML maps and sequences as map keys are refused as sigs.k8s.io/yaml refuses them, before composing to JS', () => {
  // Found by npm run fuzz: 51 nested explicit keys (102 bytes) made the yaml library print keys inside keys until
  // "Invalid string length", with RSS at 1.7 GB.
  const started = Date.now();
  assert.throws(() => parseYAMLBody('? '.repeat(51) + 'x\n'), { message: 'unsupported map key of type: map[interface {}]interface {}' });
  assert.ok(Date.now() - started < 1000);
  assert.throws(() => parseYAMLBody('? [a, b]\n: 1\n'), { message: 'unsupported map key of type: []interface {}' });
  assert.throws(() => parseYAMLBody('a: &k {x: 1}\n*k : 2\n'), { message: 'unsupported map key of type: map[interface {}]interface {}' });
  assert.deepEqual(parseYAMLBody('? a\n: 1\n1: 2\ntrue: 3\n').value, { a: 1, '1': 2, true: 3 });
});
