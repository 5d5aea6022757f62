/** The default field manager of non-apply writes (apiserver handlers `prefixFromUserAgent`). */

export const FIELD_MANAGER_MAX_LENGTH = 128;
// Go's unicode.IsPrint: letters, marks, numbers, punctuation, symbols and the ASCII space.
const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;

/**
 * The User-Agent up to its first `/`, without non-printable characters, cut to whole characters within 128
 * bytes; `unknown` when nothing is left (as upstream names a nameless manager).
 */
export function managerFromUserAgent(userAgent: string | undefined): string {
  const head = (userAgent ?? '').split('/')[0]!;
  let out = '';
  let bytes = 0;
  for (const ch of head) {
    if (!PRINTABLE.test(ch)) continue;
    const n = Buffer.byteLength(ch, 'utf8');
    if (bytes + n > FIELD_MANAGER_MAX_LENGTH) break;
    out += ch;
    bytes += n;
  }
  return out === '' ? 'unknown' : out;
}
