/**
 * Go's net/netip address and prefix parsing and printing, which the Kubernetes IP and CIDR CEL libraries are defined
 * by: the same accepted forms (no IPv4 octets with leading zeroes, at most one `::`, an embedded IPv4 only in the last
 * 32 bits, zones after `%`), the same error texts (`ParseAddr("…"): … (at "…")`, `netip.ParsePrefix("…"): …`) and
 * RFC 5952 canonical text (lower-case hex, the first longest run of two or more zero fields as `::`).
 */

export class Addr {
  constructor(
    /** 4 bytes for IPv4, 16 for IPv6. */
    readonly bytes: Uint8Array,
    readonly zone = '',
  ) {}

  get is4(): boolean {
    return this.bytes.length === 4;
  }

  get is6(): boolean {
    return this.bytes.length === 16;
  }

  /** An IPv6 address of the form ::ffff:a.b.c.d. */
  get is4In6(): boolean {
    if (!this.is6) return false;
    for (let i = 0; i < 10; i++) if (this.bytes[i] !== 0) return false;
    return this.bytes[10] === 0xff && this.bytes[11] === 0xff;
  }

  get bitLen(): number {
    return this.bytes.length * 8;
  }

  #u16(i: number): number {
    return (this.bytes[2 * i]! << 8) | this.bytes[2 * i + 1]!;
  }

  isUnspecified(): boolean {
    return this.bytes.every((b) => b === 0);
  }

  isLoopback(): boolean {
    if (this.is4) return this.bytes[0] === 127;
    return this.bytes.every((b, i) => (i === 15 ? b === 1 : b === 0));
  }

  isMulticast(): boolean {
    return this.is4 ? (this.bytes[0]! & 0xf0) === 0xe0 : this.bytes[0] === 0xff;
  }

  isLinkLocalMulticast(): boolean {
    if (this.is4) return this.bytes[0] === 224 && this.bytes[1] === 0 && this.bytes[2] === 0;
    return this.bytes[0] === 0xff && (this.bytes[1]! & 0x0f) === 0x02;
  }

  isLinkLocalUnicast(): boolean {
    if (this.is4) return this.bytes[0] === 169 && this.bytes[1] === 254;
    return this.bytes[0] === 0xfe && (this.bytes[1]! & 0xc0) === 0x80;
  }

  /** Go's IsGlobalUnicast: not broadcast, unspecified, loopback, multicast or link-local unicast. */
  isGlobalUnicast(): boolean {
    if (this.is4 && this.bytes.every((b) => b === 255)) return false;
    return !this.isUnspecified() && !this.isLoopback() && !this.isMulticast() && !this.isLinkLocalUnicast();
  }

  /** Go's Addr.String(). */
  toString(): string {
    if (this.is4) return this.bytes.join('.');
    if (this.is4In6) return `::ffff:${[...this.bytes.slice(12)].join('.')}${this.zone ? `%${this.zone}` : ''}`;
    let zeroStart = -1;
    let zeroEnd = -1;
    for (let i = 0; i < 8; i++) {
      let j = i;
      while (j < 8 && this.#u16(j) === 0) j++;
      if (j - i >= 2 && j - i > zeroEnd - zeroStart) {
        zeroStart = i;
        zeroEnd = j;
      }
    }
    let out = '';
    for (let i = 0; i < 8; i++) {
      if (i === zeroStart) {
        out += '::';
        i = zeroEnd;
        if (i >= 8) break;
      } else if (i > 0) out += ':';
      out += this.#u16(i).toString(16);
    }
    return this.zone ? `${out}%${this.zone}` : out;
  }
}

export class Prefix {
  constructor(
    readonly addr: Addr,
    readonly bits: number,
  ) {}

  /** The address with the bits past the prefix length cleared. */
  masked(): Prefix {
    const b = new Uint8Array(this.addr.bytes);
    for (let i = 0; i < b.length; i++) {
      const keep = Math.max(0, Math.min(8, this.bits - i * 8));
      b[i]! &= (0xff << (8 - keep)) & 0xff;
    }
    return new Prefix(new Addr(b), this.bits);
  }

  /** Go's Prefix.Contains: same family and the first `bits` bits equal (a zoned address is never contained). */
  contains(ip: Addr): boolean {
    if (ip.zone !== '' || ip.bytes.length !== this.addr.bytes.length) return false;
    return sameBits(this.addr.bytes, ip.bytes, this.bits);
  }

  /** Go's Prefix.Overlaps: same family and either contains the other's first address. */
  overlaps(o: Prefix): boolean {
    if (o.addr.bytes.length !== this.addr.bytes.length) return false;
    return sameBits(this.addr.bytes, o.addr.bytes, Math.min(this.bits, o.bits));
  }

  toString(): string {
    return `${this.addr.toString()}/${this.bits}`;
  }
}

function sameBits(a: Uint8Array, b: Uint8Array, bits: number): boolean {
  for (let i = 0; i < a.length && bits > 0; i++, bits -= 8) {
    const mask = bits >= 8 ? 0xff : (0xff << (8 - bits)) & 0xff;
    if ((a[i]! & mask) !== (b[i]! & mask)) return false;
  }
  return true;
}

/** Go's strconv.Quote for the ASCII these texts hold. */
const q = (s: string) => JSON.stringify(s);

function addrError(input: string, msg: string, at?: string): Error {
  return new Error(at ? `ParseAddr(${q(input)}): ${msg} (at ${q(at)})` : `ParseAddr(${q(input)}): ${msg}`);
}

/** Go's netip.ParseAddr. */
export function parseAddr(s: string): Addr {
  for (const c of s) {
    if (c === '.') return parseIPv4(s);
    if (c === ':') return parseIPv6(s);
    if (c === '%') throw addrError(s, 'missing IPv6 address');
  }
  throw addrError(s, 'unable to parse IP');
}

function parseIPv4Fields(input: string, s: string, fields: Uint8Array): void {
  let val = 0;
  let pos = 0;
  let digits = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c >= '0' && c <= '9') {
      if (digits === 1 && val === 0) throw addrError(input, 'IPv4 field has octet with leading zero');
      val = val * 10 + (c.charCodeAt(0) - 48);
      digits++;
      if (val > 255) throw addrError(input, 'IPv4 field has value >255');
    } else if (c === '.') {
      if (i === 0 || i === s.length - 1 || s[i - 1] === '.') throw addrError(input, 'IPv4 field must have at least one digit', s.slice(i));
      if (pos === 3) throw addrError(input, 'IPv4 address too long');
      fields[pos++] = val;
      val = 0;
      digits = 0;
    } else throw addrError(input, 'unexpected character', s.slice(i));
  }
  if (pos < 3) throw addrError(input, 'IPv4 address too short');
  fields[3] = val;
}

function parseIPv4(s: string): Addr {
  const fields = new Uint8Array(4);
  parseIPv4Fields(s, s, fields);
  return new Addr(fields);
}

function hexValue(c: string): number {
  if (c >= '0' && c <= '9') return c.charCodeAt(0) - 48;
  if (c >= 'a' && c <= 'f') return c.charCodeAt(0) - 87;
  if (c >= 'A' && c <= 'F') return c.charCodeAt(0) - 55;
  return -1;
}

function parseIPv6(input: string): Addr {
  let s = input;
  let zone = '';
  const pct = s.indexOf('%');
  if (pct !== -1) {
    zone = s.slice(pct + 1);
    s = s.slice(0, pct);
    if (zone === '') throw addrError(input, 'zone must be a non-empty string');
  }
  const ip = new Uint8Array(16);
  let ellipsis = -1;
  if (s.length >= 2 && s[0] === ':' && s[1] === ':') {
    ellipsis = 0;
    s = s.slice(2);
    if (s.length === 0) return new Addr(ip, zone);
  }
  let i = 0;
  while (i < 16) {
    let off = 0;
    let acc = 0;
    for (; off < s.length; off++) {
      const h = hexValue(s[off]!);
      if (h < 0) break;
      acc = acc * 16 + h;
      if (off > 3) throw addrError(input, 'each group must have 4 or less digits', s);
      if (acc > 0xffff) throw addrError(input, 'IPv6 field has value >=2^16', s);
    }
    if (off === 0) throw addrError(input, 'each colon-separated field must have at least one digit', s);
    if (off < s.length && s[off] === '.') {
      if (ellipsis < 0 && i !== 12) throw addrError(input, 'embedded IPv4 address must replace the final 2 fields of the address', s);
      if (i + 4 > 16) throw addrError(input, 'too many hex fields to fit an embedded IPv4 at the end of the address', s);
      parseIPv4Fields(input, s, ip.subarray(i, i + 4));
      i += 4;
      s = '';
      break;
    }
    ip[i] = acc >> 8;
    ip[i + 1] = acc & 0xff;
    i += 2;
    s = s.slice(off);
    if (s.length === 0) break;
    if (s[0] !== ':') throw addrError(input, 'unexpected character, want colon', s);
    if (s.length === 1) throw addrError(input, 'colon must be followed by more characters', s);
    s = s.slice(1);
    if (s[0] === ':') {
      if (ellipsis >= 0) throw addrError(input, 'multiple :: in address', s);
      ellipsis = i;
      s = s.slice(1);
      if (s.length === 0) break;
    }
  }
  if (s.length !== 0) throw addrError(input, 'trailing garbage after address', s);
  if (i < 16) {
    if (ellipsis < 0) throw addrError(input, 'address string too short');
    const n = 16 - i;
    for (let j = i - 1; j >= ellipsis; j--) ip[j + n] = ip[j]!;
    ip.fill(0, ellipsis, ellipsis + n);
  } else if (ellipsis >= 0) throw addrError(input, 'the :: must expand to at least one field of zeros', s);
  return new Addr(ip, zone);
}

/** Go's netip.ParsePrefix. */
export function parsePrefix(s: string): Prefix {
  const fail = (msg: string) => new Error(`netip.ParsePrefix(${q(s)}): ${msg}`);
  const slash = s.lastIndexOf('/');
  if (slash < 0) throw fail("no '/'");
  let ip: Addr;
  try {
    ip = parseAddr(s.slice(0, slash));
  } catch (e) {
    throw fail((e as Error).message);
  }
  if (ip.is6 && ip.zone !== '') throw fail('IPv6 zones cannot be present in a prefix');
  const bitsStr = s.slice(slash + 1);
  // strconv.Atoi would take a sign and leading zeroes; netip does not.
  if ((bitsStr.length > 1 && (bitsStr[0]! < '1' || bitsStr[0]! > '9')) || !/^[0-9]+$/.test(bitsStr)) throw fail(`bad bits after slash: ${q(bitsStr)}`);
  // Past int64, Atoi itself fails: also "bad bits".
  if (BigInt(bitsStr) > 0x7fffffffffffffffn) throw fail(`bad bits after slash: ${q(bitsStr)}`);
  const bits = Number(bitsStr);
  if (bits > ip.bitLen) throw fail('prefix length out of range');
  return new Prefix(ip, bits);
}
