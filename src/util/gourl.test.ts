import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseGoURL } from './gourl.ts';

test('go url: the parts Go finds and the texts it refuses with', () => {
  assert.deepEqual(parseGoURL('HTTPS://u:p@h.example:8443/a%20b?q=1#frag').url, {
    scheme: 'https', user: 'u:p', host: 'h.example:8443', path: '/a%20b', rawQuery: 'q=1', fragment: 'frag', opaque: '',
  });
  assert.equal(parseGoURL('mailto:x@y').url?.opaque, 'x@y');
  assert.equal(parseGoURL('://x').error, 'parse "://x": missing protocol scheme');
  assert.equal(parseGoURL('a:b/c').url?.scheme, 'a');
  assert.equal(parseGoURL('1a:b').error, 'parse "1a:b": first path segment in URL cannot contain colon');
  assert.equal(parseGoURL('https://h:x').error, 'parse "https://h:x": invalid port ":x" after host');
  assert.equal(parseGoURL('https://h /').error, 'parse "https://h /": invalid character " " in host name');
  assert.equal(parseGoURL('https://h/%zz').error, 'parse "https://h/%zz": invalid URL escape "%zz"');
  assert.equal(parseGoURL('https://h/\n').error, 'parse "https://h/\\n": net/url: invalid control character in URL');
  assert.equal(parseGoURL('https://[::1]:80/').url?.host, '[::1]:80');
});
