/**
 * The parts of Go's net/url.Parse that configuration validation depends on: which URLs it refuses and with what
 * text (`parse "<url>": <reason>`), and the scheme, user info, query and fragment it finds. Node's WHATWG URL
 * accepts and normalises far more (`https:host`, spaces, backslashes), so it cannot stand in for Go here.
 */
import { goQuote } from './goquote.ts';

export interface GoURL {
  /** Lower-cased, as Go stores it. */
  scheme: string;
  /** `user` or `user:password` when the authority has `@`, else undefined. */
  user?: string;
  host: string;
  path: string;
  rawQuery: string;
  fragment: string;
  /** A URL like `mailto:x` (scheme, no `//`). */
  opaque: string;
}

export type GoURLResult = { url: GoURL; error?: undefined } | { url?: undefined; error: string };

const fail = (raw: string, reason: string): GoURLResult => ({ error: `parse ${goQuote(raw)}: ${reason}` });

// eslint-disable-next-line no-control-regex
const CONTROL = /[\x00-\x1f\x7f]/;
const HEX2 = /^[0-9a-fA-F]{2}$/;

/** Go's unescape: every `%` must start two hex digits; returns the first bad escape, if any. */
function badEscape(s: string): string | undefined {
  for (let i = 0; i < s.length; i++) {
    if (s[i] !== '%') continue;
    const esc = s.slice(i, i + 3);
    if (!HEX2.test(esc.slice(1))) return esc;
    i += 2;
  }
  return undefined;
}

// Host characters Go accepts unescaped (shouldEscape in encodeHost mode is false for these).
const HOST_OK = /^[A-Za-z0-9\-._~!$&'()*+,;=:[\]<>"%]$/;

function parseHost(raw: string, host: string): { host: string } | GoURLResult {
  let h = host;
  if (h.startsWith('[')) {
    const end = h.lastIndexOf(']');
    if (end < 0) return fail(raw, 'missing \']\' in host');
    const port = h.slice(end + 1);
    if (port !== '' && !/^:\d*$/.test(port)) return fail(raw, `invalid port ${goQuote(port)} after host`);
    h = h.slice(0, end + 1);
  } else {
    const colon = h.lastIndexOf(':');
    if (colon >= 0) {
      const port = h.slice(colon);
      if (!/^:\d*$/.test(port)) return fail(raw, `invalid port ${goQuote(port)} after host`);
    }
  }
  const esc = badEscape(host);
  if (esc !== undefined) return fail(raw, `invalid URL escape ${goQuote(esc)}`);
  for (const ch of host) {
    if (ch.charCodeAt(0) < 0x80 && !HOST_OK.test(ch)) return fail(raw, `invalid character ${goQuote(ch)} in host name`);
  }
  return { host };
}

/** Go's url.Parse (not ParseRequestURI). */
export function parseGoURL(raw: string): GoURLResult {
  const hash = raw.indexOf('#');
  const fragment = hash >= 0 ? raw.slice(hash + 1) : '';
  let rest = hash >= 0 ? raw.slice(0, hash) : raw;
  const fragEsc = badEscape(fragment);
  if (fragEsc !== undefined) return fail(raw, `invalid URL escape ${goQuote(fragEsc)}`);
  if (CONTROL.test(rest)) return fail(raw, 'net/url: invalid control character in URL');
  if (rest === '' && hash >= 0) return { url: { scheme: '', host: '', path: '', rawQuery: '', fragment, opaque: '' } };

  let scheme = '';
  for (let i = 0; i < rest.length; i++) {
    const c = rest[i]!;
    if (/[a-zA-Z]/.test(c)) continue;
    if (/[0-9+\-.]/.test(c)) {
      if (i === 0) break;
      continue;
    }
    if (c === ':') {
      if (i === 0) return fail(raw, 'missing protocol scheme');
      scheme = rest.slice(0, i).toLowerCase();
      rest = rest.slice(i + 1);
    }
    break;
  }
  let rawQuery = '';
  const q = rest.indexOf('?');
  if (q >= 0) {
    rawQuery = rest.slice(q + 1);
    rest = rest.slice(0, q);
  }
  const url: GoURL = { scheme, host: '', path: '', rawQuery, fragment, opaque: '' };
  if (!rest.startsWith('/')) {
    if (scheme !== '') {
      url.opaque = rest;
      return { url };
    }
    const colon = rest.indexOf(':');
    const slash = rest.indexOf('/');
    if (colon >= 0 && (slash < 0 || colon < slash)) return fail(raw, 'first path segment in URL cannot contain colon');
  }
  if ((scheme !== '' || !rest.startsWith('///')) && rest.startsWith('//')) {
    const authEnd = rest.indexOf('/', 2);
    const authority = authEnd >= 0 ? rest.slice(2, authEnd) : rest.slice(2);
    rest = authEnd >= 0 ? rest.slice(authEnd) : '';
    const at = authority.lastIndexOf('@');
    let host = authority;
    if (at >= 0) {
      const userinfo = authority.slice(0, at);
      if (!/^[A-Za-z0-9\-._:~!$&'()*+,;=%@]*$/.test(userinfo)) return fail(raw, 'net/url: invalid userinfo');
      url.user = userinfo;
      host = authority.slice(at + 1);
    }
    const h = parseHost(raw, host);
    if ('error' in h && h.error !== undefined) return h;
    url.host = host;
  }
  const pathEsc = badEscape(rest);
  if (pathEsc !== undefined) return fail(raw, `invalid URL escape ${goQuote(pathEsc)}`);
  url.path = rest;
  return { url };
}

/** The decoded path of a request target (Go's URL.Path): the part before `?`, percent-decoded, as sent when it does not decode. */
export function requestPath(target: string): string {
  const q = target.indexOf('?');
  const raw = q >= 0 ? target.slice(0, q) : target;
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}
