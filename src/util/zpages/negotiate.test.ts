import { test } from 'node:test';
import assert from 'node:assert/strict';
import { newNotAcceptable } from '../../apimachinery/errors.ts';
import { negotiateZpage, ZPAGE_MEDIA_TYPES } from './negotiate.ts';

const JSON_STATUSZ = 'application/json;v=v1beta1;g=config.cluster.io;as=Statusz';

test('no, blank, text or wildcard Accept: the text form', () => {
  for (const accept of [undefined, '', '  ', 'text/plain', 'text/*', '*/*', 'text/plain;q=0.5, application/xml']) {
    assert.deepEqual(negotiateZpage(accept, 'Statusz'), { format: 'text' }, String(accept));
  }
});

test('g, v and as of the endpoint\'s kind select the structured form, JSON or YAML', () => {
  assert.deepEqual(negotiateZpage(JSON_STATUSZ, 'Statusz'), { format: 'structured', mediaType: 'application/json', pretty: false });
  assert.deepEqual(negotiateZpage('application/json;as=Flagz;g=config.cluster.io;v=v1beta1;pretty=1', 'Flagz'),
    { format: 'structured', mediaType: 'application/json', pretty: true });
  assert.deepEqual(negotiateZpage('application/yaml;v=v1beta1;g=config.cluster.io;as=Flagz', 'Flagz'),
    { format: 'structured', mediaType: 'application/yaml', pretty: false });
});

test('a structured clause that cannot be served is skipped: a later wildcard gets text', () => {
  assert.deepEqual(negotiateZpage('application/json;v=foo;g=config.cluster.io;as=Statusz,*/*', 'Statusz'), { format: 'text' });
});

test('406 with upstream\'s message when no clause is left: JSON lacking g, v or as, the wrong kind, other types', () => {
  for (const accept of [
    'application/json',
    'application/json;v=v1beta1;g=config.cluster.io',
    'application/json;v=v1beta1;as=Statusz',
    'application/json;g=config.cluster.io;as=Statusz',
    'application/json;v=v1beta1;g=config.k8s.io;as=Statusz',
    'application/json;v=v1beta1;g=config.cluster.io;as=Flagz',
    'application/vnd.kubernetes.protobuf;v=v1beta1;g=config.cluster.io;as=Statusz',
    'application/xml',
  ]) {
    assert.equal(negotiateZpage(accept, 'Statusz'), undefined, accept);
  }
  const e = newNotAcceptable([...ZPAGE_MEDIA_TYPES]);
  assert.equal(e.code, 406);
  assert.equal(e.message, 'only the following media types are accepted: application/json, application/yaml, text/plain');
});
