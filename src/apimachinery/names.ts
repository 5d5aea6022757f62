/** Name generation for `metadata.generateName` (apiserver `pkg/storage/names`, apimachinery `pkg/util/rand`). */
import { randomInt } from 'node:crypto';

/** Upstream's alphabet for random suffixes: no vowels (no accidental words) and no easily confused characters. */
export const NAME_SUFFIX_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';
const MAX_NAME_LENGTH = 63;
const RANDOM_LENGTH = 5;
export const MAX_GENERATED_PREFIX_LENGTH = MAX_NAME_LENGTH - RANDOM_LENGTH;

/** The prefix cut to 58 bytes, plus 5 random characters, so the result fits a 63-byte DNS label. */
export function generateName(prefix: string): string {
  const bytes = Buffer.from(prefix, 'utf8');
  const base = bytes.length > MAX_GENERATED_PREFIX_LENGTH ? bytes.subarray(0, MAX_GENERATED_PREFIX_LENGTH).toString('utf8') : prefix;
  let suffix = '';
  for (let i = 0; i < RANDOM_LENGTH; i++) suffix += NAME_SUFFIX_ALPHABET[randomInt(NAME_SUFFIX_ALPHABET.length)];
  return base + suffix;
}
