import { test } from 'node:test';
import assert from 'node:assert/strict';
import { relabelFieldSelector } from './relabel.ts';
import { parseFieldSelector } from './selector.ts';

const MAP = new Map([
  ['involvedObject.name', 'regarding.name'],
  ['reportingComponent', 'reportingController'],
]);

test('renames mapped fields and keeps the others, operators and values', () => {
  const sel = relabelFieldSelector(parseFieldSelector('involvedObject.name=p,type!=Normal,reportingComponent==a\\,b'), MAP);
  assert.equal(sel.toString(), 'regarding.name=p,reportingController=a\\,b,type!=Normal');
  assert.deepEqual(
    sel.requirements.map((r) => [r.field, r.operator, r.value]),
    [
      ['regarding.name', '=', 'p'],
      ['reportingController', '==', 'a,b'],
      ['type', '!=', 'Normal'],
    ],
  );
  assert.equal(sel.requiresExactMatch('regarding.name'), 'p');
  assert.equal(sel.matches({ 'regarding.name': 'p', reportingController: 'a,b', type: 'Warning' }), true);
  assert.equal(sel.matches({ 'involvedObject.name': 'p', reportingController: 'a,b', type: 'Warning' }), false);
});

test('a selector without mapped fields is returned as is', () => {
  const sel = parseFieldSelector('metadata.name=x,source=c');
  assert.equal(relabelFieldSelector(sel, MAP), sel);
  const empty = parseFieldSelector('');
  assert.equal(relabelFieldSelector(empty, MAP).isEmpty(), true);
});
