/**
 * Kubernetes' CEL property-name escaping (`apiserver/pkg/cel/escaping.go`), read side only: claim names that are
 * not CEL identifiers can be selected in escaped form, `claims.foo__dot__bar` for the claim `foo.bar` (`__dash__`,
 * `__slash__`, `__underscores__`, and `__<keyword>__` for a CEL keyword such as `namespace`). Upstream applies this
 * to the claims map at every depth and to `user.extra`; an escaped name replaces the name looked up.
 */

const RESERVED = new Set(['true', 'false', 'null', 'in', 'as', 'break', 'const', 'continue', 'else', 'for', 'function', 'if', 'import', 'let', 'loop', 'package', 'namespace', 'return', 'var', 'void', 'while']);
const ESCAPES: Record<string, string> = { underscores: '__', dot: '.', dash: '-', slash: '/' };

/** The name `escaped` stands for, or undefined when it is not a valid escaped name (upstream cel.Unescape). */
export function unescapeName(escaped: string): string | undefined {
  let ok = true;
  const out = escaped.replace(/__[^_]+__/g, (m) => {
    const inner = m.slice(2, -2);
    const plain = ESCAPES[inner];
    if (plain !== undefined) return plain;
    if (RESERVED.has(inner)) {
      if (m.length !== escaped.length) ok = false;
      return inner;
    }
    ok = false;
    return '';
  });
  return ok ? out : undefined;
}

const lookupName = (k: string): string => {
  if (!k.includes('__')) return k;
  const name = unescapeName(k);
  return name === undefined ? k : name;
};

const wrapped = new WeakMap<object, object>();

/**
 * `value` with escaped-name lookup on every JSON object in it (lazily: nested objects are wrapped when reached).
 * Iteration and size still see the real names, as upstream's.
 */
export function withEscapedLookup<T>(value: T): T {
  if (value === null || typeof value !== 'object') return value;
  const existing = wrapped.get(value);
  if (existing) return existing as T;
  const isArray = Array.isArray(value);
  const proxy = new Proxy(value, {
    get: (t, k) => {
      const key = typeof k === 'string' && !isArray ? lookupName(k) : k;
      const v = Reflect.get(t, key);
      return typeof k === 'string' ? withEscapedLookup(v) : v;
    },
    has: (t, k) => Reflect.has(t, typeof k === 'string' && !isArray ? lookupName(k) : k),
    getOwnPropertyDescriptor: (t, k) => Reflect.getOwnPropertyDescriptor(t, typeof k === 'string' && !isArray ? lookupName(k) : k),
  });
  wrapped.set(value, proxy);
  return proxy;
}
