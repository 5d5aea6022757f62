/**
 * Patch bodies as Go reads them: encoding/json's syntax error texts, and the duplicate keys that sigs.k8s.io/json's
 * strict mode reports (`duplicate field "metadata.labels.a"`), since fieldValidation applies to patch bodies too.
 */
import { parseExact, type ExactSides } from '../codec/jsonscan.ts';
import { checkSyntax } from '../codec/jsonsyntax.ts';

/** A body Go could not decode; the message is the Go error text. */
export class PatchDecodeError extends Error {}

export interface ParsedBody {
  value: unknown;
  /** Strict-mode problems: repeated keys, in document order. */
  duplicates: string[];
}

/** Parses a JSON patch body; throws PatchDecodeError with Go's syntax text (`invalid character ...`). */
export function parsePatchJSON(body: Buffer): ParsedBody {
  const syntax = checkSyntax(body);
  if (syntax !== null) throw new PatchDecodeError(syntax);
  const { value, sides } = parseExact(body.toString('utf8'));
  const duplicates: string[] = [];
  collectDuplicates(value, '', sides, duplicates);
  return { value, duplicates };
}

function collectDuplicates(v: unknown, path: string, sides: ExactSides, out: string[]): void {
  if (Array.isArray(v)) {
    v.forEach((x, i) => collectDuplicates(x, `${path}[${i}]`, sides, out));
    return;
  }
  if (typeof v !== 'object' || v === null) return;
  const order = sides.order.get(v);
  if (order) {
    const seen = new Set<string>();
    for (const k of order) {
      const p = `duplicate field "${join(path, k)}"`;
      if (seen.has(k) && !out.includes(p)) out.push(p);
      seen.add(k);
    }
  }
  for (const [k, x] of Object.entries(v)) collectDuplicates(x, join(path, k), sides, out);
}

const join = (path: string, k: string): string => (path === '' ? k : `${path}.${k}`);

/** The JSON kind as encoding/json names it in `cannot unmarshal <kind> into ...`. */
export function jsonKind(v: unknown): string {
  if (typeof v === 'string') return 'string';
  if (typeof v === 'number') return 'number';
  if (typeof v === 'boolean') return 'bool';
  return Array.isArray(v) ? 'array' : 'object';
}

export function isMap(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Sets an own property; `__proto__` becomes data, never the prototype. */
export function setKey(o: Record<string, unknown>, k: string, v: unknown): void {
  if (k === '__proto__') Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
  else o[k] = v;
}

export function hasKey(o: Record<string, unknown>, k: string): boolean {
  return Object.prototype.hasOwnProperty.call(o, k);
}
