/**
 * Go's strconv.Quote, so that log lines and flag errors print strings exactly as the Go components do
 * (JSON.stringify differs for control characters: `\u001b` versus Go's `\x1b`). Hand-written: no npm
 * package reproduces Go's quoting rules.
 */

// Go's unicode.IsPrint: letters, marks, numbers, punctuation, symbols and the ASCII space.
const PRINTABLE = /[\p{L}\p{M}\p{N}\p{P}\p{S} ]/u;
const PLAIN_ASCII = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;
const NAMED_ESCAPES: Record<number, string> = {
  0x07: '\\a', 0x08: '\\b', 0x0c: '\\f', 0x0a: '\\n', 0x0d: '\\r', 0x09: '\\t', 0x0b: '\\v',
};

/** Quotes `s` as Go's `strconv.Quote` (and `%q`) does. */
export function goQuote(s: string): string {
  if (PLAIN_ASCII.test(s)) return `"${s}"`;
  let out = '"';
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    if (ch === '"' || ch === '\\') out += '\\' + ch;
    else if (cp >= 0xd800 && cp <= 0xdfff) out += '\ufffd'; // a lone surrogate is invalid UTF-8 once encoded
    else if (PRINTABLE.test(ch)) out += ch;
    else if (NAMED_ESCAPES[cp] !== undefined) out += NAMED_ESCAPES[cp];
    else if (cp < 0x20 || cp === 0x7f) out += '\\x' + cp.toString(16).padStart(2, '0');
    else if (cp < 0x10000) out += '\\u' + cp.toString(16).padStart(4, '0');
    else out += '\\U' + cp.toString(16).padStart(8, '0');
  }
  return out + '"';
}
