/**
 * The hash space of shard selectors: 64-bit FNV-1a over the UTF-8 bytes of a field value (apimachinery
 * pkg/sharding/hash.go). Hand-written: node:crypto offers no FNV, and the list and watch paths hash every object,
 * so the loop runs on two 32-bit halves in doubles instead of a bigint per byte (several times faster).
 */

/** The top of the hash space, 2^64: the exclusive upper bound of a selector covering everything. */
export const HASH_SPACE_END = 1n << 64n;

const TWO_32 = 0x1_0000_0000;
const encoder = new TextEncoder();

/**
 * 64-bit FNV-1a as its high and low 32-bit halves: `hash = hi * 2^32 + lo`. Callers that compare many hashes
 * against fixed bounds use this form to stay off bigint.
 */
export function fnv1a64Halves(value: string): [hi: number, lo: number] {
  let hi = 0xcbf29ce4;
  let lo = 0x84222325;
  let ascii = true;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c >= 0x80) {
      ascii = false;
      break;
    }
  }
  const bytes: ArrayLike<number> = ascii ? [] : encoder.encode(value);
  const n = ascii ? value.length : bytes.length;
  for (let i = 0; i < n; i++) {
    lo = (lo ^ (ascii ? value.charCodeAt(i) : bytes[i]!)) >>> 0;
    // h * (2^40 + 0x1b3) mod 2^64; every intermediate stays below 2^53, so the doubles are exact
    const low = lo * 0x1b3;
    hi = (hi * 0x1b3 + Math.floor(low / TWO_32) + (lo << 8)) >>> 0;
    lo = low >>> 0;
  }
  return [hi, lo];
}

/** 64-bit FNV-1a (offset basis 0xcbf29ce484222325, prime 0x100000001b3) of the UTF-8 bytes of `value`. */
export function fnv1a64(value: string): bigint {
  const [hi, lo] = fnv1a64Halves(value);
  return (BigInt(hi) << 32n) | BigInt(lo);
}

/**
 * A point of the hash space as selectors print it: `0x` and 16 lowercase hex digits, or `0x10000000000000000`
 * for 2^64.
 */
export function formatShardHex(n: bigint): string {
  return '0x' + n.toString(16).padStart(16, '0');
}
