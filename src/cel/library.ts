/**
 * The Kubernetes CEL library functions that authentication expressions use, for @marcbachmann/cel-js, which has
 * the core language, optionals and part of cel-go's strings extension but not these (upstream:
 * `apiserver/pkg/cel/library` and cel-go's `ext` package, as the base environment enables them):
 *
 * - strings ext: `charAt`, `replace` (2 and 3 arguments), `reverse`, `strings.quote` (the library already has
 *   `indexOf`, `lastIndexOf`, `lowerAscii`, `upperAscii`, `split`, `substring`, `trim`, `join`);
 * - Kubernetes lists: `isSorted`, `sum`, `min`, `max`, `indexOf`, `lastIndexOf`;
 * - lists ext: `slice`, `flatten`, `distinct`, `sort`, `reverse`, `lists.range`;
 * - sets ext: `sets.contains`, `sets.equivalent`, `sets.intersects`;
 * - regex: `find`, `findAll` (JavaScript regular expressions stand in for RE2: the same for the common syntax);
 * - URLs: `url`, `isURL`, `getScheme`, `getHost`, `getHostname`, `getPort`, `getEscapedPath`, `getQuery`.
 *
 * `format` is in library-format.ts, semver in library-semver.ts, IP/CIDR in library-ip.ts, quantity in
 * library-quantity.ts; two-variable comprehensions are in comprehensions.ts. Not here: authz, whose functions need
 * an `authorizer` variable that authentication expressions do not have.
 *
 * cel-js rejects dotted function names, so `sets.x(…)` is a method of a constant `sets` of a namespace type, the way
 * the library itself provides `optional.of(…)`. Functions that walk their input charge its size to the cost meter.
 */
import type { Environment } from '@marcbachmann/cel-js';
import { parseGoURL, type GoURL } from '../util/gourl.ts';
import { charge, traversalCost } from './cost.ts';

/** A CEL evaluation error raised by a library function; cel-js reports it with the expression's position. */
export class CELFunctionError extends Error {}

class SetsNamespace {}
class ListsNamespace {}
class StringsNamespace {}

/** The value of `url(…)`: Go's parsed URL (cel type `kubernetes.URL`). */
export class KubernetesURL {
  constructor(readonly url: GoURL) {}
}

type Num = number | bigint;
const isNum = (v: unknown): v is Num => typeof v === 'number' || typeof v === 'bigint';

/** CEL equality, enough for set membership: numbers compare across int, uint and double; lists element-wise. */
function celEquals(a: unknown, b: unknown): boolean {
  if (isNum(a) && isNum(b)) return typeof a === typeof b ? a === b : Number(a) === Number(b);
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => celEquals(x, b[i]));
  return a === b;
}
const includes = (list: unknown[], x: unknown): boolean => list.some((y) => celEquals(x, y));

function compare(a: unknown, b: unknown): number {
  if (isNum(a) && isNum(b)) return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  throw new CELFunctionError(`no such overload: comparison of ${typeof a} and ${typeof b}`);
}

function toInt(n: bigint, what: string, max: number): number {
  if (n < 0n || n > BigInt(max)) throw new CELFunctionError(`${what} out of range`);
  return Number(n);
}

/** Go's url.ParseRequestURI acceptance on top of url.Parse: absolute URL or absolute path. */
function requestURI(s: string): KubernetesURL {
  const r = parseGoURL(s);
  if (r.error !== undefined) throw new CELFunctionError(`URL parse error during conversion from string: ${r.error}`);
  if (r.url.scheme === '' && !r.url.path.startsWith('/')) {
    throw new CELFunctionError(`URL parse error during conversion from string: parse ${JSON.stringify(s)}: invalid URI for request`);
  }
  return new KubernetesURL(r.url);
}

function hostname(host: string): string {
  if (host.startsWith('[')) return host.slice(1, host.indexOf(']'));
  const colon = host.lastIndexOf(':');
  return colon >= 0 ? host.slice(0, colon) : host;
}

function port(host: string): string {
  const start = host.startsWith('[') ? host.indexOf(']') + 1 : 0;
  const colon = host.indexOf(':', start);
  return colon >= 0 && host.lastIndexOf(':') === colon ? host.slice(colon + 1) : '';
}

function queryMap(raw: string): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const part of raw.split('&')) {
    if (part === '' || part.includes(';')) continue;
    const eq = part.indexOf('=');
    const decode = (s: string) => {
      try {
        return decodeURIComponent(s.replace(/\+/g, ' '));
      } catch {
        return undefined;
      }
    };
    const k = decode(eq >= 0 ? part.slice(0, eq) : part);
    const v = decode(eq >= 0 ? part.slice(eq + 1) : '');
    if (k === undefined || v === undefined) continue;
    (out[k] ??= []).push(v);
  }
  return out;
}

function regex(pattern: string): RegExp {
  try {
    return new RegExp(pattern, 'gu');
  } catch (e) {
    throw new CELFunctionError(`invalid regex: ${(e as Error).message}`);
  }
}

/** Registers the library on `env` (before it is cloned or used). */
export function registerKubernetesLibrary(env: Environment): void {
  const fn = (signature: string, handler: (...args: never[]) => unknown) => env.registerFunction(signature, handler as never);

  // strings ext
  fn('string.charAt(int): string', (s: string, i: bigint) => {
    const chars = [...s];
    return chars[toInt(i, 'index', chars.length)] ?? '';
  });
  fn('string.replace(string, string): string', (s: string, from: string, to: string) => {
    charge(traversalCost(s.length));
    return s.split(from).join(to);
  });
  fn('string.replace(string, string, int): string', (s: string, from: string, to: string, n: bigint) => {
    charge(traversalCost(s.length));
    if (n < 0n) return s.split(from).join(to);
    const parts = s.split(from);
    const k = Math.min(Number(n), parts.length - 1);
    return parts.slice(0, k + 1).join(to) + (k + 1 < parts.length ? from + parts.slice(k + 1).join(from) : '');
  });
  fn('string.reverse(): string', (s: string) => {
    charge(traversalCost(s.length));
    return [...s].reverse().join('');
  });
  env.registerType('StringsNamespace', StringsNamespace);
  env.registerConstant('strings', 'StringsNamespace', new StringsNamespace());
  fn('StringsNamespace.quote(string): string', (_ns: StringsNamespace, s: string) => JSON.stringify(s));

  // regex
  fn('string.find(string): string', (s: string, re: string) => {
    charge(traversalCost(s.length));
    return regex(re).exec(s)?.[0] ?? '';
  });
  fn('string.findAll(string): list<string>', (s: string, re: string) => {
    charge(traversalCost(s.length));
    return [...s.matchAll(regex(re))].map((m) => m[0]);
  });
  fn('string.findAll(string, int): list<string>', (s: string, re: string, n: bigint) => {
    charge(traversalCost(s.length));
    const all = [...s.matchAll(regex(re))].map((m) => m[0]);
    return n < 0n ? all : all.slice(0, Number(n));
  });

  // Kubernetes lists
  const walk = (l: unknown[]) => charge(l.length);
  fn('list<A>.isSorted(): bool', (l: unknown[]) => {
    walk(l);
    return l.every((x, i) => i === 0 || compare(l[i - 1], x) <= 0);
  });
  fn('list<A>.sum(): A', (l: unknown[]) => {
    walk(l);
    if (l.length === 0) return 0n;
    if (l.every((x) => typeof x === 'bigint')) return (l as bigint[]).reduce((a, b) => a + b, 0n);
    if (l.every((x) => typeof x === 'number')) return (l as number[]).reduce((a, b) => a + b, 0);
    throw new CELFunctionError('no such overload: sum of mixed or non-numeric list');
  });
  const extreme = (name: string, sign: number) => (l: unknown[]) => {
    walk(l);
    if (l.length === 0) throw new CELFunctionError(`${name} called on empty list`);
    return l.reduce((a, b) => (compare(b, a) * sign > 0 ? b : a));
  };
  fn('list<A>.min(): A', extreme('min', -1));
  fn('list<A>.max(): A', extreme('max', 1));
  fn('list<A>.indexOf(A): int', (l: unknown[], x: unknown) => {
    walk(l);
    return BigInt(l.findIndex((y) => celEquals(x, y)));
  });
  fn('list<A>.lastIndexOf(A): int', (l: unknown[], x: unknown) => {
    walk(l);
    for (let i = l.length - 1; i >= 0; i--) if (celEquals(x, l[i])) return BigInt(i);
    return -1n;
  });

  // lists ext
  fn('list<A>.slice(int, int): list<A>', (l: unknown[], from: bigint, to: bigint) => {
    const f = toInt(from, 'start index', l.length);
    const t = toInt(to, 'end index', l.length);
    if (f > t) throw new CELFunctionError(`cannot slice(${f}, ${t}), start index must be less than or equal to end index`);
    return l.slice(f, t);
  });
  fn('list<list<A>>.flatten(): list<A>', (l: unknown[][]) => {
    walk(l);
    return l.flat(1);
  });
  fn('list<A>.distinct(): list<A>', (l: unknown[]) => {
    charge(l.length * l.length);
    const out: unknown[] = [];
    for (const x of l) if (!includes(out, x)) out.push(x);
    return out;
  });
  fn('list<A>.sort(): list<A>', (l: unknown[]) => {
    charge(l.length * Math.ceil(Math.log2(l.length + 1)));
    return [...l].sort(compare);
  });
  fn('list<A>.reverse(): list<A>', (l: unknown[]) => {
    walk(l);
    return [...l].reverse();
  });
  env.registerType('ListsNamespace', ListsNamespace);
  env.registerConstant('lists', 'ListsNamespace', new ListsNamespace());
  fn('ListsNamespace.range(int): list<int>', (_ns: ListsNamespace, n: bigint) => {
    charge(Number(n > 0n ? n : 0n));
    return Array.from({ length: Number(n > 0n ? n : 0n) }, (_, i) => BigInt(i));
  });

  // sets ext
  env.registerType('SetsNamespace', SetsNamespace);
  env.registerConstant('sets', 'SetsNamespace', new SetsNamespace());
  fn('SetsNamespace.contains(list<A>, list<A>): bool', (_ns: SetsNamespace, a: unknown[], b: unknown[]) => {
    charge(a.length * b.length);
    return b.every((x) => includes(a, x));
  });
  fn('SetsNamespace.equivalent(list<A>, list<A>): bool', (_ns: SetsNamespace, a: unknown[], b: unknown[]) => {
    charge(2 * a.length * b.length);
    return b.every((x) => includes(a, x)) && a.every((x) => includes(b, x));
  });
  fn('SetsNamespace.intersects(list<A>, list<A>): bool', (_ns: SetsNamespace, a: unknown[], b: unknown[]) => {
    charge(a.length * b.length);
    return b.some((x) => includes(a, x));
  });

  // URLs
  env.registerType('kubernetes.URL', KubernetesURL);
  fn('url(string): kubernetes.URL', (s: string) => {
    charge(traversalCost(s.length));
    return requestURI(s);
  });
  fn('isURL(string): bool', (s: string) => {
    charge(traversalCost(s.length));
    try {
      requestURI(s);
      return true;
    } catch {
      return false;
    }
  });
  fn('kubernetes.URL.getScheme(): string', (u: KubernetesURL) => u.url.scheme);
  fn('kubernetes.URL.getHost(): string', (u: KubernetesURL) => u.url.host);
  fn('kubernetes.URL.getHostname(): string', (u: KubernetesURL) => hostname(u.url.host));
  fn('kubernetes.URL.getPort(): string', (u: KubernetesURL) => port(u.url.host));
  fn('kubernetes.URL.getEscapedPath(): string', (u: KubernetesURL) => u.url.path);
  fn('kubernetes.URL.getQuery(): map<string, list<string>>', (u: KubernetesURL) => queryMap(u.url.rawQuery));
}
