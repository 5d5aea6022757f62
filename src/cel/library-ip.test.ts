import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compileClaimsExpression, evaluateClaims } from './authentication.ts';
import { parseAddr, parsePrefix } from './netip.ts';

function run(expression: string, claims: Record<string, unknown> = {}): unknown {
  const r = compileClaimsExpression(expression, 'any');
  assert.equal(r.error, undefined, `${expression}: ${r.error}`);
  return evaluateClaims(r.compiled!, claims);
}

test('ip: parse, family, canonical text, classification', () => {
  assert.equal(run('ip(claims.addr).family()', { addr: '10.1.2.3' }), 4n);
  assert.equal(run('ip("2001:db8::1").family()'), 6n);
  assert.equal(run('string(ip("2001:0DB8:0:0:1:0:0:1"))'), '2001:db8::1:0:0:1', 'the first longest zero run is compressed');
  assert.equal(run('string(ip("2001:db8:0:1:1:1:1:1"))'), '2001:db8:0:1:1:1:1:1', 'a single zero field is not');
  assert.equal(run('ip.isCanonical("2001:db8::1")'), true);
  assert.equal(run('ip.isCanonical("2001:DB8::1")'), false);
  assert.equal(run('isIP("1.2.3")'), false);
  assert.equal(run('isIP("::1")'), true);
  assert.equal(run('ip("127.0.0.1").isLoopback() && ip("::1").isLoopback()'), true);
  assert.equal(run('ip("0.0.0.0").isUnspecified() && ip("::").isUnspecified()'), true);
  assert.equal(run('ip("224.0.0.251").isLinkLocalMulticast() && ip("ff02::fb").isLinkLocalMulticast()'), true);
  assert.equal(run('ip("169.254.1.1").isLinkLocalUnicast() && ip("fe80::1").isLinkLocalUnicast()'), true);
  assert.equal(run('ip("8.8.8.8").isGlobalUnicast() && ip("10.0.0.1").isGlobalUnicast() && ip("2001:db8::1").isGlobalUnicast()'), true);
  assert.equal(run('ip("255.255.255.255").isGlobalUnicast() || ip("224.0.0.1").isGlobalUnicast() || ip("fe80::1").isGlobalUnicast()'), false);
  assert.throws(() => run('ip("1.2.3")'), /IP Address "1\.2\.3" parse error during conversion from string: ParseAddr\("1\.2\.3"\): IPv4 address too short/);
  assert.throws(() => run('ip("::ffff:1.2.3.4")'), /IPv4-mapped IPv6 address "::ffff:1\.2\.3\.4" is not allowed/);
  assert.throws(() => run('ip("fe80::1%eth0")'), /IP address "fe80::1%eth0" with zone value is not allowed/);
});

test('cidr: parse, contains, masked, prefix length', () => {
  assert.equal(run('cidr("10.0.0.0/8").containsIP("10.1.2.3")'), true);
  assert.equal(run('cidr("10.0.0.0/8").containsIP(ip("11.0.0.1"))'), false);
  assert.equal(run('cidr("10.0.0.0/8").containsIP("::1")'), false, 'another family');
  assert.equal(run('cidr("10.0.0.0/8").containsCIDR("10.1.0.0/16")'), true);
  assert.equal(run('cidr("10.1.0.0/16").containsCIDR(cidr("10.0.0.0/8"))'), false);
  assert.equal(run('string(cidr("10.1.2.3/8").masked())'), '10.0.0.0/8');
  assert.equal(run('string(cidr("10.1.2.3/8").ip())'), '10.1.2.3');
  assert.equal(run('cidr("2001:db8::/32").prefixLength()'), 32n);
  assert.equal(run('string(cidr("2001:db8:ffff::/33").masked())'), '2001:db8:8000::/33');
  assert.equal(run('isCIDR("10.0.0.0/33")'), false);
  assert.throws(() => run('cidr("1.2.3.4")'), {
    message: /network address parse error during conversion from string: network address parse error during conversion from string: netip\.ParsePrefix\("1\.2\.3\.4"\): no '\/'/,
  });
});

test('netip: Go\'s accepted forms and error texts', () => {
  assert.equal(parseAddr('1::').toString(), '1::');
  assert.equal(parseAddr('::ffff:0:0').toString(), '::ffff:0.0.0.0');
  assert.equal(parseAddr('64:ff9b::1.2.3.4').toString(), '64:ff9b::102:304');
  assert.equal(parseAddr('0:0:0:0:0:0:0:1').toString(), '::1');
  const fails: [string, string][] = [
    ['', 'ParseAddr(""): unable to parse IP'],
    ['1.2.3.04', 'ParseAddr("1.2.3.04"): IPv4 field has octet with leading zero'],
    ['1.2.3.256', 'ParseAddr("1.2.3.256"): IPv4 field has value >255'],
    ['1.2.3.4.5', 'ParseAddr("1.2.3.4.5"): IPv4 address too long'],
    ['1..2.3', 'ParseAddr("1..2.3"): IPv4 field must have at least one digit (at ".2.3")'],
    ['1.2.3.x', 'ParseAddr("1.2.3.x"): unexpected character (at "x")'],
    ['%eth0', 'ParseAddr("%eth0"): missing IPv6 address'],
    ['1::2::3', 'ParseAddr("1::2::3"): multiple :: in address (at ":3")'],
    ['12345::', 'ParseAddr("12345::"): each group must have 4 or less digits (at "12345::")'],
    ['1:2:3:4:5:6:7', 'ParseAddr("1:2:3:4:5:6:7"): address string too short'],
    ['1:2:3:4:5:6:7:8::', 'ParseAddr("1:2:3:4:5:6:7:8::"): the :: must expand to at least one field of zeros'],
    ['1:2:3:4:5:6:7:8:9', 'ParseAddr("1:2:3:4:5:6:7:8:9"): trailing garbage after address (at "9")'],
    ['1.2.3.4:', 'ParseAddr("1.2.3.4:"): unexpected character (at ":")'],
    ['fe80::1%', 'ParseAddr("fe80::1%"): zone must be a non-empty string'],
  ];
  for (const [input, message] of fails) assert.throws(() => parseAddr(input), { message }, input);
  assert.throws(() => parsePrefix('10.0.0.0/33'), { message: 'netip.ParsePrefix("10.0.0.0/33"): prefix length out of range' });
  assert.throws(() => parsePrefix('10.0.0.0/08'), { message: 'netip.ParsePrefix("10.0.0.0/08"): bad bits after slash: "08"' });
  assert.throws(() => parsePrefix('fe80::%eth0/64'), { message: 'netip.ParsePrefix("fe80::%eth0/64"): IPv6 zones cannot be present in a prefix' });
  assert.throws(() => parsePrefix('1.2.3/8'), { message: 'netip.ParsePrefix("1.2.3/8"): ParseAddr("1.2.3"): IPv4 address too short' });
});
