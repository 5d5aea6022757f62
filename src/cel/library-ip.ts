/**
 * The Kubernetes IP and CIDR CEL libraries (upstream `apiserver/pkg/cel/library/ip.go` and `cidr.go`, in the base
 * environment since 1.30), over Go's netip semantics (netip.ts), with upstream's error texts:
 *
 * - `ip(string)`, `isIP(string)`, `ip.isCanonical(string)`, `string(ip)`, and on an IP `family()`,
 *   `isUnspecified()`, `isLoopback()`, `isLinkLocalMulticast()`, `isLinkLocalUnicast()`, `isGlobalUnicast()`;
 * - `cidr(string)`, `isCIDR(string)`, `string(cidr)`, and on a CIDR `containsIP(ip|string)`,
 *   `containsCIDR(cidr|string)`, `ip()`, `masked()`, `prefixLength()`.
 *
 * Zones and IPv4-mapped IPv6 addresses are refused, as upstream refuses them. cel-js refuses dotted function names, so
 * `ip.isCanonical(…)` is a method of a constant `ip` of a namespace type; the variable names `ip` and `cidr` are free
 * in authentication expressions (only `claims` and `user` are declared).
 */
import type { Environment } from '@marcbachmann/cel-js';
import { charge, traversalCost } from './cost.ts';
import { CELFunctionError } from './library.ts';
import { type Addr, parseAddr, parsePrefix, type Prefix } from './netip.ts';

/** cel type `net.IP`. */
export class CELIP {
  constructor(readonly addr: Addr) {}
}

/** cel type `net.CIDR`. */
export class CELCIDR {
  constructor(readonly prefix: Prefix) {}
}

class IPNamespace {}

/** Upstream parseIPAddr. */
function parseIP(raw: string): Addr {
  let addr: Addr;
  try {
    addr = parseAddr(raw);
  } catch (e) {
    throw new CELFunctionError(`IP Address ${JSON.stringify(raw)} parse error during conversion from string: ${(e as Error).message}`);
  }
  if (addr.zone !== '') throw new CELFunctionError(`IP address ${JSON.stringify(raw)} with zone value is not allowed`);
  if (addr.is4In6) throw new CELFunctionError(`IPv4-mapped IPv6 address ${JSON.stringify(raw)} is not allowed`);
  return addr;
}

/** Upstream parseCIDR; `cidr()` wraps its errors once more, as upstream's stringToCIDR does. */
function parseCIDR(raw: string): Prefix {
  let prefix: Prefix;
  try {
    prefix = parsePrefix(raw);
  } catch (e) {
    throw new CELFunctionError(`network address parse error during conversion from string: ${(e as Error).message}`);
  }
  if (prefix.addr.is4In6) throw new CELFunctionError(`IPv4-mapped IPv6 address ${JSON.stringify(raw)} is not allowed`);
  return prefix;
}

function succeeds(f: () => unknown): boolean {
  try {
    f();
    return true;
  } catch {
    return false;
  }
}

export function registerIPLibrary(env: Environment): void {
  const fn = (signature: string, handler: (...args: never[]) => unknown) => env.registerFunction(signature, handler as never);
  const metered = (s: string) => charge(traversalCost(s.length));
  env.registerType('net.IP', CELIP);
  env.registerType('net.CIDR', CELCIDR);
  env.registerType('IPNamespace', IPNamespace);
  env.registerConstant('ip', 'IPNamespace', new IPNamespace());

  fn('ip(string): net.IP', (s: string) => {
    metered(s);
    return new CELIP(parseIP(s));
  });
  fn('isIP(string): bool', (s: string) => {
    metered(s);
    return succeeds(() => parseIP(s));
  });
  fn('IPNamespace.isCanonical(string): bool', (_ns: IPNamespace, s: string) => {
    metered(s);
    return parseIP(s).toString() === s;
  });
  fn('string(net.IP): string', (v: CELIP) => v.addr.toString());
  fn('net.IP.family(): int', (v: CELIP) => (v.addr.is4 ? 4n : 6n));
  fn('net.IP.isUnspecified(): bool', (v: CELIP) => v.addr.isUnspecified());
  fn('net.IP.isLoopback(): bool', (v: CELIP) => v.addr.isLoopback());
  fn('net.IP.isLinkLocalMulticast(): bool', (v: CELIP) => v.addr.isLinkLocalMulticast());
  fn('net.IP.isLinkLocalUnicast(): bool', (v: CELIP) => v.addr.isLinkLocalUnicast());
  fn('net.IP.isGlobalUnicast(): bool', (v: CELIP) => v.addr.isGlobalUnicast());

  const cidr = (s: string) => {
    metered(s);
    try {
      return new CELCIDR(parseCIDR(s));
    } catch (e) {
      throw new CELFunctionError(`network address parse error during conversion from string: ${(e as Error).message}`);
    }
  };
  fn('cidr(string): net.CIDR', cidr);
  fn('isCIDR(string): bool', (s: string) => {
    metered(s);
    return succeeds(() => parseCIDR(s));
  });
  fn('string(net.CIDR): string', (c: CELCIDR) => c.prefix.toString());
  fn('net.CIDR.containsIP(net.IP): bool', (c: CELCIDR, v: CELIP) => c.prefix.contains(v.addr));
  fn('net.CIDR.containsIP(string): bool', (c: CELCIDR, s: string) => {
    metered(s);
    return c.prefix.contains(parseIP(s));
  });
  const containsCIDR = (c: CELCIDR, o: CELCIDR) => c.prefix.overlaps(o.prefix) && c.prefix.bits <= o.prefix.bits;
  fn('net.CIDR.containsCIDR(net.CIDR): bool', containsCIDR);
  fn('net.CIDR.containsCIDR(string): bool', (c: CELCIDR, s: string) => containsCIDR(c, cidr(s)));
  fn('net.CIDR.ip(): net.IP', (c: CELCIDR) => new CELIP(c.prefix.addr));
  fn('net.CIDR.masked(): net.CIDR', (c: CELCIDR) => new CELCIDR(c.prefix.masked()));
  fn('net.CIDR.prefixLength(): int', (c: CELCIDR) => BigInt(c.prefix.bits));
}
