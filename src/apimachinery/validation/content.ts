/**
 * String format checks of apimachinery (`pkg/api/validate/content`, `pkg/util/validation`): each returns the list of
 * problem descriptions upstream returns, empty when the value is valid. Clients match on these texts, so they follow
 * upstream word for word. Lengths are Go `len()`: UTF-8 bytes.
 */
import { byteLength } from '../field.ts';

/** `must be no more than N bytes` (upstream MaxLenError). */
export function maxLenError(length: number): string {
  return `must be no more than ${length} bytes`;
}

/** `must be non-empty` (upstream EmptyError). */
export const EMPTY_ERROR = 'must be non-empty';

/** The regex explanation upstream appends to format errors, with optional examples. */
export function regexError(msg: string, re: string, ...examples: string[]): string {
  if (examples.length === 0) return `${msg} (regex used for validation is '${re}')`;
  let s = `${msg} (e.g. `;
  examples.forEach((ex, i) => {
    if (i > 0) s += ' or ';
    s += `'${ex}', `;
  });
  return `${s}regex used for validation is '${re}')`;
}

const DNS1123_LABEL_FMT = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const DNS1123_LABEL_MSG =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
export const DNS1123_LABEL_MAX_LENGTH = 63;
const DNS1123_LABEL_RE = new RegExp(`^${DNS1123_LABEL_FMT}$`);

const DNS1123_SUBDOMAIN_FMT = `${DNS1123_LABEL_FMT}(\\.${DNS1123_LABEL_FMT})*`;
const DNS1123_SUBDOMAIN_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
export const DNS1123_SUBDOMAIN_MAX_LENGTH = 253;
const DNS1123_SUBDOMAIN_RE = new RegExp(`^${DNS1123_SUBDOMAIN_FMT}$`);

/** RFC 1123 label (namespace names). */
export function isDNS1123Label(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > DNS1123_LABEL_MAX_LENGTH) errs.push(maxLenError(DNS1123_LABEL_MAX_LENGTH));
  if (!DNS1123_LABEL_RE.test(value)) {
    // A valid subdomain that is not a valid label can only be failing because of its dots.
    if (DNS1123_SUBDOMAIN_RE.test(value)) errs.push('must not contain dots');
    else errs.push(regexError(DNS1123_LABEL_MSG, DNS1123_LABEL_FMT, 'my-name', '123-abc'));
  }
  return errs;
}

const DNS1035_LABEL_FMT = '[a-z]([-a-z0-9]*[a-z0-9])?';
const DNS1035_LABEL_MSG = "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character";
const DNS1035_LABEL_RE = new RegExp(`^${DNS1035_LABEL_FMT}$`);

/** RFC 1035 label (upstream IsDNS1035Label: service names, CEL's `format.dns1035Label()`). */
export function isDNS1035Label(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > DNS1123_LABEL_MAX_LENGTH) errs.push(maxLenError(DNS1123_LABEL_MAX_LENGTH));
  if (!DNS1035_LABEL_RE.test(value)) errs.push(regexError(DNS1035_LABEL_MSG, DNS1035_LABEL_FMT, 'my-name', 'abc-123'));
  return errs;
}

/** RFC 1123 subdomain (object names, label-key prefixes). */
export function isDNS1123Subdomain(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > DNS1123_SUBDOMAIN_MAX_LENGTH) errs.push(maxLenError(DNS1123_SUBDOMAIN_MAX_LENGTH));
  if (!DNS1123_SUBDOMAIN_RE.test(value)) errs.push(regexError(DNS1123_SUBDOMAIN_MSG, DNS1123_SUBDOMAIN_FMT, 'example.com'));
  return errs;
}

const LABEL_KEY_FMT = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const LABEL_KEY_MSG = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const LABEL_KEY_MAX_LENGTH = 63;
const LABEL_KEY_RE = new RegExp(`^${LABEL_KEY_FMT}$`);

/** Qualified name = label key: optional DNS-subdomain prefix and `/`, then a name part of at most 63 bytes. */
export function isQualifiedName(value: string): string[] {
  const errs: string[] = [];
  const parts = value.split('/');
  let name: string;
  if (parts.length === 1) {
    name = parts[0]!;
  } else if (parts.length === 2) {
    const prefix = parts[0]!;
    name = parts[1]!;
    if (prefix.length === 0) errs.push(`prefix part ${EMPTY_ERROR}`);
    else for (const msg of isDNS1123Subdomain(prefix)) errs.push(`prefix part ${msg}`);
  } else {
    return [
      `a valid label key ${regexError(LABEL_KEY_MSG, LABEL_KEY_FMT, 'MyName', 'my.name', '123-abc')}` +
        " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    ];
  }
  if (name.length === 0) errs.push(`name part ${EMPTY_ERROR}`);
  else if (byteLength(name) > LABEL_KEY_MAX_LENGTH) errs.push(`name part ${maxLenError(LABEL_KEY_MAX_LENGTH)}`);
  if (!LABEL_KEY_RE.test(name)) errs.push(`name part ${regexError(LABEL_KEY_MSG, LABEL_KEY_FMT, 'MyName', 'my.name', '123-abc')}`);
  return errs;
}

const LABEL_VALUE_FMT = `(${LABEL_KEY_FMT})?`;
const LABEL_VALUE_MSG =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const LABEL_VALUE_MAX_LENGTH = 63;
const LABEL_VALUE_RE = new RegExp(`^${LABEL_VALUE_FMT}$`);

/** Label value: empty, or at most 63 bytes of the label-key name syntax. */
export function isLabelValue(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > LABEL_VALUE_MAX_LENGTH) errs.push(maxLenError(LABEL_VALUE_MAX_LENGTH));
  if (!LABEL_VALUE_RE.test(value)) errs.push(regexError(LABEL_VALUE_MSG, LABEL_VALUE_FMT, 'MyValue', 'my_value', '12345'));
  return errs;
}

/** A name usable as one URL path segment (no `.`/`..`, no `/` or `%`); empty and long names are not checked here. */
export function isPathSegmentName(name: string): string[] {
  for (const bad of ['.', '..']) if (name === bad) return [`may not be '${bad}'`];
  return isPathSegmentPrefix(name);
}

/** The prefix form of isPathSegmentName: a suffix could still make `.`/`..` valid, so only the contents are checked. */
export function isPathSegmentPrefix(name: string): string[] {
  const errs: string[] = [];
  for (const bad of ['/', '%']) if (name.includes(bad)) errs.push(`may not contain '${bad}'`);
  return errs;
}

/** Validates a name, or with `prefix` a generateName (which will get a suffix). */
export type NameValidator = (name: string, prefix: boolean) => string[];

/**
 * Upstream's maskTrailingDash, bug included: for a prefix longer than one byte that ends in `-`, the LAST TWO
 * characters are replaced by `a` (so `ab-` is checked as `aa`). Kept because it decides which prefixes pass.
 */
function maskTrailingDash(name: string): string {
  const bytes = byteLength(name);
  if (bytes <= 1 || !name.endsWith('-')) return name;
  // One byte per character (ASCII, what every valid prefix is): bytes and characters cut alike.
  if (bytes === name.length) return name.slice(0, -2) + 'a';
  // Cut bytes like Go does: a multi-byte character cut in half decodes to U+FFFD and still fails the format check.
  return Buffer.from(name, 'utf8').subarray(0, -2).toString('utf8') + 'a';
}

/** Names that must be DNS subdomains (Event names). */
export const nameIsDNSSubdomain: NameValidator = (name, prefix) => isDNS1123Subdomain(prefix ? maskTrailingDash(name) : name);

/** Names that must be DNS labels (namespace names). */
export const nameIsDNSLabel: NameValidator = (name, prefix) => isDNS1123Label(prefix ? maskTrailingDash(name) : name);

/** The generic REST name check: names and generateName prefixes must be path segments. */
export const nameIsPathSegment: NameValidator = (name, prefix) => (prefix ? isPathSegmentPrefix(name) : isPathSegmentName(name));
