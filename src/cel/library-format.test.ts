import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compileClaimsExpression, evaluateClaims } from './authentication.ts';

function run(expression: string, claims: Record<string, unknown> = {}): unknown {
  const r = compileClaimsExpression(expression, 'any');
  assert.equal(r.error, undefined, `${expression}: ${r.error}`);
  return evaluateClaims(r.compiled!, claims);
}

// apimachinery's RegexError writes "'a',  or 'b'" (two spaces): the texts below are upstream's, character for character.
test('format: none for a valid string, apimachinery\'s messages for an invalid one', () => {
  assert.equal(run('format.dns1123Label().validate(claims.team).hasValue()', { team: 'team-a' }), false);
  assert.deepEqual(run('format.dns1123Label().validate(claims.team).value()', { team: 'Team_A' }), [
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
  ]);
  assert.deepEqual(run('format.dns1035Label().validate("1abc").value()'), [
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
  ]);
  assert.deepEqual(run('format.dns1123Subdomain().validate("a.b").orValue([])'), []);
  assert.equal(run('format.qualifiedName().validate("example.com/Name").hasValue()'), false);
  assert.equal(run('format.labelValue().validate("").hasValue()'), false);
  // Prefixes of generated names may end in '-'.
  assert.equal(run('format.dns1123LabelPrefix().validate("abc-").hasValue()'), false);
  assert.equal(run('format.dns1123Label().validate("abc-").hasValue()'), true);
});

test('format: the CRD formats and format.named', () => {
  assert.equal(run('format.named("uuid").hasValue()'), true);
  assert.equal(run('format.named("nope").hasValue()'), false);
  assert.equal(run('format.named("uuid").value().validate("1b4e28ba-2fa1-11d2-883f-0016d3cca427").hasValue()'), false);
  assert.deepEqual(run('format.uuid().validate("x").value()'), ['does not match the UUID format']);
  assert.deepEqual(run('format.uri().validate("rel/x").value()'), ['parse "rel/x": invalid URI for request']);
  assert.equal(run('format.uri().validate("https://example.com/a?b").hasValue()'), false);
  assert.equal(run('format.byte().validate("aGVsbG8=").hasValue()'), false);
  assert.deepEqual(run('format.byte().validate("aGVsbG8").value()'), ['invalid base64']);
  assert.equal(run('format.date().validate("2024-02-29").hasValue()'), false);
  assert.deepEqual(run('format.date().validate("2023-02-29").value()'), ['invalid date']);
  assert.equal(run('format.datetime().validate("2024-02-29T23:59:59.5Z").hasValue()'), false);
  assert.equal(run('format.datetime().validate("2024-02-29t10:00:00+02:00").hasValue()'), false);
  assert.deepEqual(run('format.datetime().validate("2024-02-29T24:00:00Z").value()'), ['invalid datetime']);
});
