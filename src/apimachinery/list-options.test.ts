import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { StatusError } from './errors.ts';
import { featureGates } from '../features.ts';
import { encodeContinue } from './continue.ts';
import { parseListOptions } from './list-options.ts';
import type { ListOptions } from './list-options.ts';

const LABELS = new Set([
  'metadata.name', 'metadata.namespace', 'reason', 'type', 'reportingController', 'source',
  'regarding.kind', 'regarding.namespace', 'regarding.name', 'regarding.uid', 'regarding.apiVersion',
  'regarding.resourceVersion', 'regarding.fieldPath',
]);
const parse = (q: string, watchPath = false): ListOptions =>
  parseListOptions(new URLSearchParams(q), { watchPath, supportedFieldLabels: LABELS });
const INV = 'ListOptions.meta.k8s.io "" is invalid: ';
const TOKEN = encodeContinue('ns/a\u0000', 10);

/** Plain fields of the result (selectors rendered as strings) for deepEqual. */
function plain(o: ListOptions): Record<string, unknown> {
  const { labelSelector, fieldSelector, ...rest } = o;
  return { ...rest, ...(labelSelector ? { labelSelector: labelSelector.toString() } : {}), ...(fieldSelector ? { fieldSelector: fieldSelector.toString() } : {}) };
}

describe('parseListOptions: decoding and defaulting', () => {
  const cases: [string, string, boolean, Record<string, unknown>][] = [
    ['empty', '', false, { limit: 0, watch: false, allowWatchBookmarks: false, resourceVersionNumber: 0 }],
    ['empty values are absent', 'resourceVersion=&resourceVersionMatch=&continue=&labelSelector=&fieldSelector=', false,
      { limit: 0, watch: false, allowWatchBookmarks: false, resourceVersionNumber: 0 }],
    ['list with everything', 'labelSelector=b,a=1&fieldSelector=type=Normal&limit=500&resourceVersion=7&resourceVersionMatch=Exact&timeoutSeconds=9&unknown=1', false,
      { limit: 500, watch: false, allowWatchBookmarks: false, resourceVersionNumber: 7, resourceVersion: '7', resourceVersionMatch: 'Exact',
        timeoutSeconds: 9, labelSelector: 'a=1,b', fieldSelector: 'type=Normal' }],
    ['list NotOlderThan 0', 'resourceVersion=0&resourceVersionMatch=NotOlderThan', false,
      { limit: 0, watch: false, allowWatchBookmarks: false, resourceVersionNumber: 0, resourceVersion: '0', resourceVersionMatch: 'NotOlderThan' }],
    ['continue decoded', `continue=${TOKEN}&limit=2`, false,
      { limit: 2, watch: false, allowWatchBookmarks: false, resourceVersionNumber: 0, continue: TOKEN, continueFrom: { rv: 10, start: 'ns/a\u0000' } }],
    ['continue with resourceVersion 0', `continue=${TOKEN}&resourceVersion=0`, false,
      { limit: 0, watch: false, allowWatchBookmarks: false, resourceVersionNumber: 0, resourceVersion: '0', continue: TOKEN, continueFrom: { rv: 10, start: 'ns/a\u0000' } }],
    ['?watch defaults to a watch list', 'watch', false,
      { limit: 0, watch: true, allowWatchBookmarks: false, resourceVersionNumber: 0, sendInitialEvents: true, resourceVersionMatch: 'NotOlderThan' }],
    ['watch from 0 with bookmarks', 'watch=true&resourceVersion=0&allowWatchBookmarks=1', false,
      { limit: 0, watch: true, allowWatchBookmarks: true, resourceVersionNumber: 0, resourceVersion: '0', sendInitialEvents: true, resourceVersionMatch: 'NotOlderThan' }],
    ['watch from N: no defaulting', 'watch=1&resourceVersion=42', false,
      { limit: 0, watch: true, allowWatchBookmarks: false, resourceVersionNumber: 42, resourceVersion: '42' }],
    ['watch=false is a list', 'watch=false&allowWatchBookmarks=FALSE', false, { limit: 0, watch: false, allowWatchBookmarks: false, resourceVersionNumber: 0 }],
    ['explicit watch list', 'watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&resourceVersion=5', false,
      { limit: 0, watch: true, allowWatchBookmarks: false, resourceVersionNumber: 5, resourceVersion: '5', sendInitialEvents: true, resourceVersionMatch: 'NotOlderThan' }],
    ['sendInitialEvents=false kept', 'watch=1&sendInitialEvents=0&resourceVersionMatch=NotOlderThan', false,
      { limit: 0, watch: true, allowWatchBookmarks: false, resourceVersionNumber: 0, sendInitialEvents: false, resourceVersionMatch: 'NotOlderThan' }],
    ['watch path: watch, but no defaulting (upstream looks at the parameter)', '', true,
      { limit: 0, watch: true, allowWatchBookmarks: false, resourceVersionNumber: 0 }],
    ['watch ignores continue', 'watch=1&continue=garbage&resourceVersion=3', false,
      { limit: 0, watch: true, allowWatchBookmarks: false, resourceVersionNumber: 3, resourceVersion: '3', continue: 'garbage' }],
    ['first value of a repeated parameter', 'limit=1&limit=x', false, { limit: 1, watch: false, allowWatchBookmarks: false, resourceVersionNumber: 0 }],
    ['negative limit and timeout pass through', 'limit=-1&timeoutSeconds=-5', false,
      { limit: -1, timeoutSeconds: -5, watch: false, allowWatchBookmarks: false, resourceVersionNumber: 0 }],
  ];
  for (const [name, q, watchPath, want] of cases) it(name, () => assert.deepEqual(plain(parse(q, watchPath)), want));
});

describe('parseListOptions: errors, in upstream order', () => {
  const cases: [string, string, boolean, number, string][] = [
    // 1. decoding (400)
    ['bad limit', 'limit=ten', false, 400, 'strconv.ParseInt: parsing "ten": invalid syntax'],
    ['bad timeoutSeconds before bad limit', 'limit=x&timeoutSeconds=y', false, 400, 'strconv.ParseInt: parsing "y": invalid syntax'],
    ['empty limit', 'limit=', false, 400, 'strconv.ParseInt: parsing "": invalid syntax'],
    ['int errors before selector errors', 'labelSelector=!&limit=x', false, 400, 'strconv.ParseInt: parsing "x": invalid syntax'],
    ['label selector before field selector', 'labelSelector=!&fieldSelector=abc', false, 400, "unable to parse requirement: found '', expected: identifier"],
    ['field selector syntax', 'fieldSelector=abc', false, 400, "invalid selector: 'abc'; can't understand 'abc'"],
    ['decoding before validation', 'limit=x&resourceVersionMatch=Exact', false, 400, 'strconv.ParseInt: parsing "x": invalid syntax'],
    // 2. list validation (422)
    ['match without resourceVersion', 'resourceVersionMatch=NotOlderThan', false, 422,
      `${INV}resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided`],
    ['exact 0', 'resourceVersionMatch=Exact&resourceVersion=0', false, 422,
      `${INV}resourceVersionMatch: Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"`],
    ['unsupported match', 'resourceVersionMatch=exact&resourceVersion=1', false, 422,
      `${INV}resourceVersionMatch: Unsupported value: "exact": supported values: "Exact", "NotOlderThan", ""`],
    ['match with continue', `resourceVersionMatch=Exact&resourceVersion=5&continue=${TOKEN}`, false, 422,
      `${INV}resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden when continue is provided`],
    ['sendInitialEvents on a list', 'sendInitialEvents=true', false, 422, `${INV}sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list`],
    ['sendInitialEvents on a watch path without ?watch', 'sendInitialEvents=true', true, 422, `${INV}sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list`],
    ['all list errors aggregate', 'resourceVersionMatch=Foo&continue=x&sendInitialEvents=false', false, 422,
      `${INV}[resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided, ` +
        'resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden when continue is provided, ' +
        'resourceVersionMatch: Unsupported value: "Foo": supported values: "Exact", "NotOlderThan", "", ' +
        'sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list]'],
    // 2. watch validation (422)
    ['sendInitialEvents without match', 'watch=1&sendInitialEvents=false', false, 422,
      `${INV}resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan`],
    ['sendInitialEvents with Exact', 'watch=1&sendInitialEvents=true&resourceVersionMatch=Exact&resourceVersion=1', false, 422,
      `${INV}[resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan, ` +
        'resourceVersionMatch: Unsupported value: "Exact": supported values: "NotOlderThan"]'],
    ['match on a watch without sendInitialEvents', 'watch=1&resourceVersionMatch=NotOlderThan&resourceVersion=5', false, 422,
      `${INV}resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided`],
    ['match with continue on a watch', 'watch=1&sendInitialEvents=1&resourceVersionMatch=NotOlderThan&continue=x', false, 422,
      `${INV}resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden when continue is provided`],
    ['validation before field labels', 'resourceVersionMatch=Exact&fieldSelector=involvedObject.name=x', false, 422,
      `${INV}resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided`],
    // 3. field labels (400)
    ['unsupported field label', 'fieldSelector=involvedObject.name=x', false, 400, 'field label not supported: involvedObject.name'],
    ['first unsupported label in sorted order', 'fieldSelector=zzz=1,type=Normal,note!=a', false, 400, 'field label not supported: note'],
    ['empty field name', 'fieldSelector==x', false, 400, 'field label not supported: '],
    ['field labels before continue', 'fieldSelector=note=x&continue=bad', false, 400, 'field label not supported: note'],
    // 4. storage checks
    ['bad continue token', 'continue=abc', false, 400, "invalid continue token: continue key is not valid: invalid character 'i' looking for beginning of value"],
    ['token checked before resourceVersion', 'continue=abc&resourceVersion=5', false, 400,
      "invalid continue token: continue key is not valid: invalid character 'i' looking for beginning of value"],
    ['resourceVersion with continue', `continue=${TOKEN}&resourceVersion=5`, false, 400, 'specifying resource version is not allowed when using continue'],
    ['bad resourceVersion on a list', 'resourceVersion=abc', false, 400,
      'invalid resource version: resourceVersion: Invalid value: "abc": strconv.ParseUint: parsing "abc": invalid syntax'],
    ['bad resourceVersion on a watch', 'watch=1&resourceVersion=abc', false, 400,
      'resourceVersion: Invalid value: "abc": strconv.ParseUint: parsing "abc": invalid syntax'],
  ];
  for (const [name, q, watchPath, code, message] of cases) {
    it(name, () => {
      assert.throws(
        () => parse(q, watchPath),
        (e: unknown) => {
          assert.ok(e instanceof StatusError);
          assert.equal(e.message, message);
          assert.equal(e.code, code);
          assert.equal(e.reason, code === 400 ? 'BadRequest' : code === 422 ? 'Invalid' : '');
          return true;
        },
      );
    });
  }
  it('422 carries upstream details (kind ListOptions, group meta.k8s.io, causes)', () => {
    try {
      parse('sendInitialEvents=true');
      assert.fail('expected an error');
    } catch (e) {
      assert.ok(e instanceof StatusError);
      assert.deepEqual(e.details, {
        group: 'meta.k8s.io',
        kind: 'ListOptions',
        causes: [{ reason: 'FieldValueForbidden', message: 'Forbidden: sendInitialEvents is forbidden for list', field: 'sendInitialEvents' }],
      });
    }
  });
});

describe('parseListOptions: shardSelector (feature gate ShardedListAndWatch)', () => {
  const SEL = "shardRange(object.metadata.uid, '0x0', '0x8000000000000000')";
  const q = (extra = '') => `shardSelector=${encodeURIComponent(SEL)}${extra}`;
  const withGate = (on: boolean, fn: () => void) => {
    featureGates.set({ ShardedListAndWatch: on });
    try {
      fn();
    } finally {
      featureGates.set({});
    }
  };
  const fails = (query: string, message: string, watchPath = false) =>
    assert.throws(() => parse(query, watchPath), (e: unknown) => {
      assert.ok(e instanceof StatusError);
      assert.equal(e.code, 400);
      assert.equal(e.reason, 'BadRequest');
      assert.equal(e.message, message);
      return true;
    });

  it('gate off (the default): the parameter is ignored, even when malformed', () => {
    assert.equal(featureGates.enabled('ShardedListAndWatch'), false);
    assert.equal(parse(q()).shardSelector, undefined);
    assert.equal(parse('shardSelector=%20').shardSelector, undefined);
    assert.equal(parse('shardSelector=nonsense(').shardSelector, undefined);
  });

  it('gate on: parsed for lists and watches, canonical form kept', () => withGate(true, () => {
    const list = parse(q('&limit=5'));
    assert.equal(list.shardSelector?.toString(), "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')");
    assert.equal(list.shardSelector?.field, 'object.metadata.uid');
    assert.equal(list.limit, 5);
    assert.equal(parse(q('&watch=1')).shardSelector?.field, 'object.metadata.uid');
    assert.equal(parse(q(), true).shardSelector?.field, 'object.metadata.uid');
    const { shardSelector, ...rest } = parse(q());
    assert.ok(shardSelector);
    assert.deepEqual(rest, { limit: 0, watch: false, allowWatchBookmarks: false, resourceVersionNumber: 0 });
  }));

  it('gate on: an empty parameter is no selector; whitespace only is an error', () => withGate(true, () => {
    assert.equal(parse('shardSelector=').shardSelector, undefined);
    fails('shardSelector=%20%09', 'invalid shard selector: empty shard selector is not allowed; omit the parameter for unfiltered lists');
  }));

  it('gate on: a malformed selector is a 400, after validation and field labels, before storage checks', () => withGate(true, () => {
    fails('shardSelector=a%26%26b', 'invalid shard selector: unsupported function "_&&_"; only shardRange() and || are allowed');
    fails(q().replace('0x0', '0xZ'), 'invalid shard selector: hexStart: invalid hex character "Z" in "0xZ"');
    fails('shardSelector=x&continue=bad', 'invalid shard selector: unexpected expression kind 3; expected shardRange() call or || operator');
    fails('shardSelector=x&watch=1&resourceVersion=abc', 'invalid shard selector: unexpected expression kind 3; expected shardRange() call or || operator');
    assert.throws(() => parse('shardSelector=x&fieldSelector=note=a'), { message: 'field label not supported: note' });
    assert.throws(() => parse('shardSelector=x&sendInitialEvents=true'), { code: 422 });
  }));
});
