import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { formatStringToString, parseStringToString, readAllowListManifest, toAllowList, validateAllowListMapping } from './allow-list.ts';
import { Registry } from './registry.ts';
import { writeText } from './text.ts';

test('parseStringToString: pflag stringToString (one pair keeps its commas; several are a CSV record; repeats add)', () => {
  assert.deepEqual(parseStringToString('apiserver_request_total,verb=GET,LIST', {}), { 'apiserver_request_total,verb': 'GET,LIST' });
  assert.deepEqual(parseStringToString('"m,l=a"', {}), { 'm,l': 'a' });
  assert.deepEqual(parseStringToString('"m,l=a,b","n,k=c"', { 'x,y': 'z' }), { 'x,y': 'z', 'm,l': 'a,b', 'n,k': 'c' });
  assert.throws(() => parseStringToString('nothing', {}), { message: 'nothing must be formatted as key=value' });
  assert.equal(formatStringToString({ 'm,l': 'a,b', 'a,b': 'c' }), '["a,b=c","m,l=a,b"]');
  assert.equal(formatStringToString({}), '[]');
});

test('validateAllowListMapping: keys must be metricName,labelName (upstream text)', () => {
  assert.equal(validateAllowListMapping({ 'apiserver_request_total,verb': 'GET' }), undefined);
  assert.equal(
    validateAllowListMapping({ 'bad-name,verb': 'GET', 'ok,l': 'x' }),
    'metrics.allowListMapping: Invalid value: map[string]string{"bad-name,verb":"GET", "ok,l":"x"}: must have keys with format `metricName,labelName` where metricName matches "[a-zA-Z_:][a-zA-Z0-9_:]*" and labelName matches "[a-zA-Z_][a-zA-Z0-9_]*"',
  );
});

test('readAllowListManifest: a YAML map; unreadable, unparsable and invalid files refused with upstream texts', () => {
  const dir = mkdtempSync(join(tmpdir(), 'allow-'));
  const good = join(dir, 'good.yaml');
  writeFileSync(good, '"apiserver_request_total,verb": "GET,LIST"\n');
  assert.deepEqual(readAllowListManifest(good), { 'apiserver_request_total,verb': 'GET,LIST' });
  const missing = join(dir, 'missing.yaml');
  assert.throws(() => readAllowListManifest(missing), { message: `metrics.allowListMappingManifest: Invalid value: "${missing}": failed to read allow list manifest: open ${missing}: no such file or directory` });
  const bad = join(dir, 'bad.yaml');
  writeFileSync(bad, '"nocomma": "x"\n');
  assert.throws(() => readAllowListManifest(bad), {
    message: `metrics.allowListMappingManifest: Invalid value: "${bad}": invalid allow list mapping in manifest: [metrics.allowListMappingManifest: Invalid value: map[string]string{"nocomma":"x"}: must have keys with format \`metricName,labelName\` where metricName matches "[a-zA-Z_:][a-zA-Z0-9_:]*" and labelName matches "[a-zA-Z_][a-zA-Z0-9_]*"]`,
  });
  const list = join(dir, 'list.yaml');
  writeFileSync(list, '- a\n');
  assert.throws(() => readAllowListManifest(list), /failed to parse allow list manifest/);
});

test('an allow-list turns other values of that label into "unexpected"', () => {
  const r = new Registry({ version: '1.36.0', allowMetricLabels: toAllowList({ 'apiserver_tls_handshake_errors_total,x': 'y', 'apiserver_request_post_timeout_total,status': 'ok,error' }) });
  const c = r.counter('apiserver_request_post_timeout_total', 'h');
  c.with('timeout-handler', 'ok').inc();
  c.with('timeout-handler', 'panic').inc();
  c.with('timeout-handler', 'pending').inc();
  const text = writeText(r.collect());
  assert.match(text, /^apiserver_request_post_timeout_total\{source="timeout-handler",status="ok"\} 1$/m);
  assert.match(text, /^apiserver_request_post_timeout_total\{source="timeout-handler",status="unexpected"\} 2$/m);
});
