/**
 * The hash space of shard selectors: 64-bit FNV-1a over the UTF-8 bytes of a field value (apimachinery
 * pkg/sharding/hash.go). Hand-written: it is a few lines, and node:crypto offers no FNV.
 */

const OFFSET_BASIS = 0xcbf29ce484222325n;
const PRIME = 0x100000001b3n;
const MASK = 0xffffffffffffffffn;

/** The top of the hash space, 2^64: the exclusive upper bound of a selector covering everything. */
export const HASH_SPACE_END = 1n << 64n;

/** 64-bit FNV-1a of the UTF-8 bytes of `value`, as an unsigned bigint in [0, 2^64). */
export function fnv1a64(value: string): bigint {
  let h = OFFSET_BASIS;
  for (const byte of Buffer.from(value, 'utf8')) h = ((h ^ BigInt(byte)) * PRIME) & MASK;
  return h;
}

/**
 * A point of the hash space as selectors print it: `0x` and 16 lowercase hex digits, or `0x10000000000000000`
 * for 2^64.
 */
export function formatShardHex(n: bigint): string {
  return '0x' + n.toString(16).padStart(16, '0');
}
