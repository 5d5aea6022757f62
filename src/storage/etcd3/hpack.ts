/**
 * HPACK (RFC 7541) for the etcd client's own HTTP/2 framing (h2.ts): a full decoder (etcd's Go encoder indexes
 * headers in its dynamic table and Huffman-codes strings when shorter) and the one encoding the client needs, a
 * request's fixed headers as literals without indexing. Written here because the npm HPACK codecs are streaming
 * objects built for whole HTTP stacks; a gRPC answer's header blocks are a few bytes each.
 */

/** An HPACK decoding failure: a COMPRESSION_ERROR for the connection (RFC 7540 §4.3). */
export class HpackError extends Error {}

const STATIC: readonly (readonly [string, string])[] = [
  ['', ''],
  [':authority', ''], [':method', 'GET'], [':method', 'POST'], [':path', '/'], [':path', '/index.html'],
  [':scheme', 'http'], [':scheme', 'https'], [':status', '200'], [':status', '204'], [':status', '206'],
  [':status', '304'], [':status', '400'], [':status', '404'], [':status', '500'], ['accept-charset', ''],
  ['accept-encoding', 'gzip, deflate'], ['accept-language', ''], ['accept-ranges', ''], ['accept', ''],
  ['access-control-allow-origin', ''], ['age', ''], ['allow', ''], ['authorization', ''], ['cache-control', ''],
  ['content-disposition', ''], ['content-encoding', ''], ['content-language', ''], ['content-length', ''],
  ['content-location', ''], ['content-range', ''], ['content-type', ''], ['cookie', ''], ['date', ''], ['etag', ''],
  ['expect', ''], ['expires', ''], ['from', ''], ['host', ''], ['if-match', ''], ['if-modified-since', ''],
  ['if-none-match', ''], ['if-range', ''], ['if-unmodified-since', ''], ['last-modified', ''], ['link', ''],
  ['location', ''], ['max-forwards', ''], ['proxy-authenticate', ''], ['proxy-authorization', ''], ['range', ''],
  ['referer', ''], ['refresh', ''], ['retry-after', ''], ['server', ''], ['set-cookie', ''],
  ['strict-transport-security', ''], ['transfer-encoding', ''], ['user-agent', ''], ['vary', ''], ['via', ''],
  ['www-authenticate', ''],
];

/**
 * The code lengths of symbols 0–256 (256 is EOS) in RFC 7541 Appendix B, one base-36 digit each. The code is
 * canonical (codes of a length are consecutive, in symbol order, after the shorter ones), so lengths define it.
 */
const LENGTHS =
  'DNSSSSSSSOUSSUSSSSSSSSUSSSSSSSSS6AACD68BAA8B8666555666666678F6CAD67777777777777777777777878DJDE6F56565666577666567655677777FBEDSKMKKMMMNMNNNNNONOOMNONNNNLMNMNNOMLKMMNNLNMMOLMNNLLMLNMNNKMMMNMMNQQKJMNMPQQQRRQOPJLQRRQROLLQQSRRRKOKLMLLNMMPPOOQNQRQQRRRRRSRRRRRQU';

/** Canonical decoding tables: per length, the first code, and where its symbols start in `SYMBOLS`. */
const FIRST = new Int32Array(31);
const COUNT = new Int32Array(31);
const OFFSET = new Int32Array(31);
const SYMBOLS: number[] = [];
{
  const len = Array.from(LENGTHS, (c) => parseInt(c, 36));
  for (const l of len) COUNT[l]!++;
  let code = 0;
  let at = 0;
  for (let l = 1; l <= 30; l++) {
    FIRST[l] = code;
    OFFSET[l] = at;
    at += COUNT[l]!;
    code = (code + COUNT[l]!) << 1;
  }
  for (let l = 1; l <= 30; l++) for (let s = 0; s < 257; s++) if (len[s] === l) SYMBOLS.push(s);
}

/** The Huffman-coded string in `b` (RFC 7541 §5.2): padding must be under 8 bits of the EOS prefix (all ones). */
export function huffmanDecode(b: Uint8Array): string {
  const out: number[] = [];
  let code = 0;
  let bits = 0;
  for (let i = 0; i < b.length; i++) {
    const byte = b[i]!;
    for (let k = 7; k >= 0; k--) {
      code = (code << 1) | ((byte >> k) & 1);
      bits++;
      if (bits < 5) continue;
      const idx = code - FIRST[bits]!;
      if (idx >= 0 && idx < COUNT[bits]!) {
        const sym = SYMBOLS[OFFSET[bits]! + idx]!;
        if (sym === 256) throw new HpackError('EOS in a Huffman-coded string');
        out.push(sym);
        code = 0;
        bits = 0;
      } else if (bits === 30) throw new HpackError('invalid Huffman code');
    }
  }
  if (bits > 7 || code !== (1 << bits) - 1) throw new HpackError('invalid Huffman padding');
  return Buffer.from(out).toString('latin1');
}

/** A decoder keeps the connection's dynamic table: one per connection, fed every header block in order. */
export class HpackDecoder {
  /** Newest first. */
  #table: [string, string][] = [];
  #size = 0;
  #max: number;
  readonly #limit: number;

  /** `limit`: the SETTINGS_HEADER_TABLE_SIZE this side advertised (the encoder may not use more). */
  constructor(limit = 4096) {
    this.#limit = limit;
    this.#max = limit;
  }

  /** The block being decoded and where in it (fields, not closures: tsx names every closure it creates, per call). */
  #b: Uint8Array = new Uint8Array(0);
  #p = 0;

  /** The header fields of one complete block, in order (names lower-case as HTTP/2 sends them). */
  decode(b: Uint8Array): [string, string][] {
    const out: [string, string][] = [];
    this.#b = b;
    this.#p = 0;
    while (this.#p < b.length) {
      const c = b[this.#p]!;
      if (c & 0x80) {
        out.push(this.#entry(this.#int(7)));
      } else if ((c & 0xc0) === 0x40) {
        const i = this.#int(6);
        const name = i ? this.#entry(i)[0] : this.#str();
        const field: [string, string] = [name, this.#str()];
        out.push(field);
        this.#add(field);
      } else if ((c & 0xe0) === 0x20) {
        if (out.length) throw new HpackError('table size update after a header field');
        const size = this.#int(5);
        if (size > this.#limit) throw new HpackError(`table size ${size} above the advertised ${this.#limit}`);
        this.#max = size;
        this.#evict();
      } else {
        const i = this.#int(4);
        const name = i ? this.#entry(i)[0] : this.#str();
        out.push([name, this.#str()]);
      }
    }
    this.#b = new Uint8Array(0);
    return out;
  }

  #int(prefix: number): number {
    const b = this.#b;
    const mask = (1 << prefix) - 1;
    let v = b[this.#p++]! & mask;
    if (v < mask) return v;
    let shift = 0;
    for (;;) {
      if (this.#p >= b.length) throw new HpackError('truncated integer');
      const c = b[this.#p++]!;
      v += (c & 0x7f) * 2 ** shift;
      shift += 7;
      if ((c & 0x80) === 0) return v;
      if (shift > 28) throw new HpackError('integer too large');
    }
  }

  #str(): string {
    const b = this.#b;
    if (this.#p >= b.length) throw new HpackError('truncated string');
    const huffman = (b[this.#p]! & 0x80) !== 0;
    const n = this.#int(7);
    if (this.#p + n > b.length) throw new HpackError('truncated string');
    const raw = b.subarray(this.#p, this.#p + n);
    this.#p += n;
    return huffman ? huffmanDecode(raw) : Buffer.from(raw.buffer, raw.byteOffset, raw.length).toString('latin1');
  }

  #entry(i: number): [string, string] {
    if (i === 0) throw new HpackError('index 0');
    if (i < STATIC.length) return STATIC[i] as [string, string];
    const e = this.#table[i - STATIC.length];
    if (!e) throw new HpackError(`index ${i} beyond the table`);
    return e;
  }

  #add(field: [string, string]): void {
    const size = field[0].length + field[1].length + 32;
    if (size > this.#max) {
      this.#table = [];
      this.#size = 0;
      return;
    }
    this.#table.unshift(field);
    this.#size += size;
    this.#evict();
  }

  #evict(): void {
    while (this.#size > this.#max) {
      const e = this.#table.pop()!;
      this.#size -= e[0].length + e[1].length + 32;
    }
  }
}

function encodeInt(out: number[], first: number, prefix: number, v: number): void {
  const mask = (1 << prefix) - 1;
  if (v < mask) {
    out.push(first | v);
    return;
  }
  out.push(first | mask);
  v -= mask;
  while (v >= 0x80) {
    out.push((v & 0x7f) | 0x80);
    v = Math.floor(v / 0x80);
  }
  out.push(v);
}

/**
 * A header block of literals without indexing (RFC 7541 §6.2.2), names by static index where the table has them:
 * nothing is added to the peer's dynamic table, so blocks can be built once and sent on any connection.
 */
export function encodeLiterals(fields: readonly (readonly [string, string])[]): Buffer {
  const out: number[] = [];
  for (const [name, value] of fields) {
    const exact = STATIC.findIndex(([n, v], i) => i > 0 && n === name && v === value);
    if (exact > 0) {
      encodeInt(out, 0x80, 7, exact);
      continue;
    }
    const named = STATIC.findIndex(([n], i) => i > 0 && n === name);
    if (named > 0) encodeInt(out, 0x00, 4, named);
    else {
      out.push(0x00);
      const n = Buffer.from(name, 'latin1');
      encodeInt(out, 0x00, 7, n.length);
      out.push(...n);
    }
    const v = Buffer.from(value, 'latin1');
    encodeInt(out, 0x00, 7, v.length);
    out.push(...v);
  }
  return Buffer.from(out);
}
