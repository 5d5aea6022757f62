import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { StatusError } from '../errors.ts';
import { HASH_SPACE_END, fnv1a64, formatShardHex } from './hash.ts';
import { parseShardSelector } from './selector.ts';

const UID = 'object.metadata.uid';
const term = (start: string, end: string, path = UID) => `shardRange(${path}, '${start}', '${end}')`;

describe('parseShardSelector: accepted, with the canonical form', () => {
  const cases: [string, string, string][] = [
    ['one term, 16 digits', term('0x0000000000000000', '0x8000000000000000'),
      "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')"],
    ["short bounds (spec: '0x0' is valid) are padded", term('0x0', '0xff'),
      "shardRange(object.metadata.uid, '0x0000000000000000', '0x00000000000000ff')"],
    ['the full space', term('0x0', '0x10000000000000000'),
      "shardRange(object.metadata.uid, '0x0000000000000000', '0x10000000000000000')"],
    ['namespace, double quotes, no blanks', 'shardRange(object.metadata.namespace,"0x1","0x2")',
      "shardRange(object.metadata.namespace, '0x0000000000000001', '0x0000000000000002')"],
    ['terms keep their order; parentheses, blanks and newlines allowed',
      `  (${term('0x8000000000000000', '0x10000000000000000')})\n||\t(${term('0x0', '0x4')} || ${term('0x4', '0x8')})  `,
      "shardRange(object.metadata.uid, '0x8000000000000000', '0x10000000000000000') || " +
        "shardRange(object.metadata.uid, '0x0000000000000000', '0x0000000000000004') || " +
        "shardRange(object.metadata.uid, '0x0000000000000004', '0x0000000000000008')"],
    ['escapes in the literals are decoded', String.raw`shardRange(object.metadata.uid, '\x30x0', '0x\u0031')`,
      "shardRange(object.metadata.uid, '0x0000000000000000', '0x0000000000000001')"],
    ['overlapping terms are kept', `${term('0x0', '0x10')} || ${term('0x0', '0x10')}`,
      "shardRange(object.metadata.uid, '0x0000000000000000', '0x0000000000000010') || " +
        "shardRange(object.metadata.uid, '0x0000000000000000', '0x0000000000000010')"],
  ];
  for (const [name, input, canonical] of cases) {
    it(name, () => {
      const sel = parseShardSelector(input);
      assert.equal(sel.toString(), canonical);
      assert.equal(`${sel}`, canonical);
      // the canonical form parses back to itself
      assert.equal(parseShardSelector(canonical).toString(), canonical);
    });
  }

  it('exposes the field and the numeric ranges', () => {
    const sel = parseShardSelector(`${term('0x1', '0x10', 'object.metadata.namespace')} || ${term('0x20', '0x10000000000000000', 'object.metadata.namespace')}`);
    assert.equal(sel.field, 'object.metadata.namespace');
    assert.deepEqual(sel.ranges, [{ start: 1n, end: 16n }, { start: 32n, end: HASH_SPACE_END }]);
  });
});

describe('parseShardSelector: rejected with 400 BadRequest and the upstream detail', () => {
  const P = 'invalid shard selector: ';
  const cases: [string, string, string][] = [
    ['whitespace only', ' \t\n', 'empty shard selector is not allowed; omit the parameter for unfiltered lists'],
    ['syntax', 'shardRange(object.metadata.uid', "CEL parse error: Syntax error: mismatched input <EOF> expecting {')', ','}"],
    ['single | and &', `${term('0x0', '0x1')} | ${term('0x1', '0x2')}`, "CEL parse error: Syntax error: token recognition error at: '|'"],
    ['&&', `${term('0x0', '0x1')} && ${term('0x1', '0x2')}`, 'unsupported function "_&&_"; only shardRange() and || are allowed'],
    ['&& under ||', `${term('0x0', '0x1')} || ${term('0x1', '0x2')} && ${term('0x1', '0x2')}`,
      'unsupported function "_&&_"; only shardRange() and || are allowed'],
    ['comparison', "object.metadata.uid == 'x'", 'unsupported function "_==_"; only shardRange() and || are allowed'],
    ['negation', `!${term('0x0', '0x1')}`, 'unsupported function "!_"; only shardRange() and || are allowed'],
    ['other function', "hash(object.metadata.uid) < '0x8'", 'unsupported function "_<_"; only shardRange() and || are allowed'],
    ['other function at the root', "inRange(object.metadata.uid, '0x0', '0x1')", 'unsupported function "inRange"; only shardRange() and || are allowed'],
    ['member function', "object.metadata.uid.startsWith('a')", 'unsupported function "startsWith"; only shardRange() and || are allowed'],
    ['a leading dot names another function', `.${term('0x0', '0x1')}`, 'unsupported function ".shardRange"; only shardRange() and || are allowed'],
    ['a literal', "'0x0'", 'unexpected expression kind 5; expected shardRange() call or || operator'],
    ['an identifier', 'shardRange', 'unexpected expression kind 3; expected shardRange() call or || operator'],
    ['a field path', 'object.metadata.uid', 'unexpected expression kind 7; expected shardRange() call or || operator'],
    ['a list', `[${term('0x0', '0x1')}]`, 'unexpected expression kind 4; expected shardRange() call or || operator'],
    ['a map', '{}', 'unexpected expression kind 6; expected shardRange() call or || operator'],
    ['true under ||', `${term('0x0', '0x1')} || true`, 'unexpected expression kind 5; expected shardRange() call or || operator'],
    ['two arguments', "shardRange(object.metadata.uid, '0x0')", 'shardRange() requires exactly 3 arguments, got 2'],
    ['no arguments', 'shardRange()', 'shardRange() requires exactly 3 arguments, got 0'],
    ['path as a string', "shardRange('object.metadata.uid', '0x0', '0x1')",
      'shardRange() first argument: expected field path (e.g. object.metadata.uid), got expression kind 5'],
    ['path through an index', "shardRange(object.metadata['uid'], '0x0', '0x1')",
      'shardRange() first argument: expected field path (e.g. object.metadata.uid), got expression kind 1'],
    ['fieldSelector-style path', term('0x0', '0x1', 'metadata.uid'),
      'unsupported field path "metadata.uid"; supported: object.metadata.uid, object.metadata.namespace'],
    ['other path', term('0x0', '0x1', 'object.metadata.name'),
      'unsupported field path "object.metadata.name"; supported: object.metadata.uid, object.metadata.namespace'],
    ['mixed paths', `${term('0x0', '0x1')} || ${term('0x1', '0x2', 'object.metadata.namespace')}`,
      'all shard ranges must use the same field, got "object.metadata.uid" and "object.metadata.namespace"'],
    ['bound as a number', "shardRange(object.metadata.uid, 0, '0x1')", 'hexStart must be a string literal, got int64'],
    ['bound as a uint', "shardRange(object.metadata.uid, '0x0', 1u)", 'hexEnd must be a string literal, got uint64'],
    ['bound as bytes', "shardRange(object.metadata.uid, b'0x0', '0x1')", 'hexStart must be a string literal, got []uint8'],
    ['bound as null', "shardRange(object.metadata.uid, null, '0x1')", 'hexStart must be a string literal, got structpb.NullValue'],
    ['bound as an identifier', "shardRange(object.metadata.uid, start, '0x1')",
      "hexStart must be a string literal (e.g. '0xff'), got expression kind 3"],
    ['bound as a call', "shardRange(object.metadata.uid, '0x0', string(1))",
      "hexEnd must be a string literal (e.g. '0xff'), got expression kind 1"],
    ['no 0x prefix', term('ff', '0x100'), `hexStart must have '0x' prefix, got "ff"`],
    ['upper-case prefix', term('0x0', '0X100'), `hexEnd must have '0x' prefix, got "0X100"`],
    ['prefix only', term('0x', '0x1'), "hexStart: hex value is required after '0x'"],
    ['18 digits', term('0x0', '0x100000000000000000'), 'hexEnd: hex value too long (18 chars, max 17): "100000000000000000"'],
    ['too long before the character check', term('0xzzzzzzzzzzzzzzzzzz', '0x1'), 'hexStart: hex value too long (18 chars, max 17): "zzzzzzzzzzzzzzzzzz"'],
    ['upper-case digits', term('0xABC', '0xfff'), 'hexStart: invalid hex character "A" in "0xABC"'],
    ['a blank inside', term('0x 1', '0x2'), 'hexStart: invalid hex character " " in "0x 1"'],
    ['a sign', term('0x-1', '0x2'), 'hexStart: invalid hex character "-" in "0x-1"'],
    ['17 digits other than 2^64', term('0x0', '0x1ffffffffffffffff'),
      `hexEnd: 17-digit hex value must be '0x10000000000000000' (2^64), got "0x1ffffffffffffffff"`],
    ['17 digits with a leading zero', term('0x0', '0x0ffffffffffffffff'),
      `hexEnd: 17-digit hex value must be '0x10000000000000000' (2^64), got "0x0ffffffffffffffff"`],
    ['empty range', term('0x10', '0x0000000000000010'), 'shard range start 0x10 must be less than end 0x0000000000000010'],
    ['reversed range', term('0x8000000000000000', '0x0'), 'shard range start 0x8000000000000000 must be less than end 0x0'],
    ['start at 2^64', term('0x10000000000000000', '0x10000000000000000'),
      'shard range start 0x10000000000000000 must be less than end 0x10000000000000000'],
    ['errors in term order', `${term('0x0', '0x1', 'object.metadata.name')} || shardRange()`,
      'unsupported field path "object.metadata.name"; supported: object.metadata.uid, object.metadata.namespace'],
  ];
  for (const [name, input, detail] of cases) {
    it(name, () => assert.throws(() => parseShardSelector(input), (e: unknown) => {
      assert.ok(e instanceof StatusError);
      assert.equal(e.code, 400);
      assert.equal(e.reason, 'BadRequest');
      assert.equal(e.message, P + detail);
      return true;
    }));
  }
});

describe('ShardSelector.matches', () => {
  it('lower bound inclusive, upper bound exclusive, compared as numbers', () => {
    const h = fnv1a64('a'); // 0xaf63dc4c8601ec8c
    const at = (start: bigint, end: bigint) => parseShardSelector(term(formatShardHex(start), formatShardHex(end))).matches('a');
    assert.equal(at(h, h + 1n), true);
    assert.equal(at(h - 1n, h), false);
    assert.equal(at(h + 1n, HASH_SPACE_END), false);
    assert.equal(at(0n, HASH_SPACE_END), true);
    // short and long spellings of the same bound compare by value
    assert.equal(parseShardSelector(term('0xaf63dc4c8601ec8c', '0x10000000000000000')).matches('a'), true);
    assert.equal(parseShardSelector(term('0x0', '0xaf63dc4c8601ec8c')).matches('a'), false);
  });

  it('any term matching is enough', () => {
    const sel = parseShardSelector(`${term('0x0', '0x1')} || ${term('0xaf63dc4c8601ec8c', '0xaf63dc4c8601ec8d')}`);
    assert.equal(sel.matches('a'), true);
    assert.equal(sel.matches(''), false); // 0xcbf29ce484222325
  });

  it('agrees with a bigint comparison of the hash for random ranges and values', () => {
    const point = fc.bigInt({ min: 0n, max: HASH_SPACE_END });
    fc.assert(fc.property(point, point, fc.oneof(fc.uuid(), fc.string()), (a, b, value) => {
      fc.pre(a !== b);
      const [start, end] = a < b ? [a, b] : [b, a];
      const h = fnv1a64(value);
      assert.equal(parseShardSelector(term(formatShardHex(start), formatShardHex(end))).matches(value), start <= h && h < end);
    }), { numRuns: 2000 });
  });

  it('N disjoint ranges covering [0, 2^64) match every uid exactly once', () => {
    const cuts = fc.uniqueArray(fc.bigInt({ min: 1n, max: HASH_SPACE_END - 1n }), { maxLength: 15 });
    fc.assert(fc.property(cuts, fc.array(fc.uuid(), { minLength: 1, maxLength: 50 }), fc.boolean(), (inner, uids, shortHex) => {
      const bounds = [0n, ...inner.sort((x, y) => (x < y ? -1 : 1)), HASH_SPACE_END];
      // bounds written in any spelling the spec allows: minimal hex digits or zero-padded to 16
      const hex = (n: bigint) => (shortHex || n === HASH_SPACE_END ? '0x' + n.toString(16) : formatShardHex(n));
      const shards = bounds.slice(1).map((end, i) => parseShardSelector(term(hex(bounds[i]!), hex(end))));
      const all = parseShardSelector(shards.map(String).join(' || '));
      for (const uid of uids) {
        assert.equal(shards.filter((s) => s.matches(uid)).length, 1, uid);
        assert.equal(all.matches(uid), true);
      }
    }), { numRuns: 300 });
  });
});
