/**
 * Checks an apply configuration against the schema the way upstream's typed conversion does (undeclared struct
 * fields, malformed or duplicated associative-list items), and normalizes its timestamps to the canonical form
 * the stored object uses, so that re-sending an equal instant in another RFC 3339 spelling is not a change.
 */
import { parseMicroTime, parseTime } from '../codec/index.ts';
import { type PathElement, peString, fieldElement } from './pathelement.ts';
import { fieldType, type TypeNode } from './typeschema.ts';
import { isMap, listItemPE, TypedError } from './typed.ts';

/** The errors of upstream's ValidationErrors: one as is, several under `errors:`. */
export function validationText(errs: string[]): string {
  return errs.length === 1 ? errs[0]! : ['errors:', ...errs.map((e) => '  ' + e)].join('\n');
}

/** A normalized copy of `v`; throws TypedError listing every problem. */
export function normalizeConfig(v: unknown, t: TypeNode): unknown {
  const errs: string[] = [];
  const out = walk(v, t, '', errs);
  if (errs.length > 0) throw new TypedError(validationText(errs));
  return out;
}

function walk(v: unknown, t: TypeNode, path: string, errs: string[]): unknown {
  if (v === null || v === undefined) return v;
  if (t.kind === 'scalar') {
    if (t.time === undefined || typeof v !== 'string') return v;
    try {
      return t.time === 'micro-time' ? parseMicroTime(v) : parseTime(v);
    } catch {
      return v; // left for the decoder's own error
    }
  }
  if (t.kind === 'list') {
    if (!Array.isArray(v)) return v;
    const seen = new Set<string>();
    const out: unknown[] = [];
    for (let i = 0; i < v.length; i++) {
      let pe: PathElement;
      if (t.associative) {
        try {
          pe = listItemPE(t, v[i]);
        } catch (e) {
          if (!(e instanceof TypedError)) throw e;
          errs.push(`${path}: element ${i}: ${e.message}`);
          return v; // upstream gives up on the rest of the list
        }
        if (seen.has(pe.s)) errs.push(`${path}: duplicate entries for key ${peString(pe)}`);
        seen.add(pe.s);
      } else pe = { t: 'i', index: i, s: `i:${i}` };
      out.push(walk(v[i], t.elem, path + peString(pe), errs));
    }
    return out;
  }
  if (!isMap(v)) return v;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(v)) {
    const ft = fieldType(t, k);
    const p = path + peString(fieldElement(k));
    if (ft === null) {
      errs.push(`${p}: field not declared in schema`);
      return v; // upstream stops walking this map at the first undeclared field
    }
    out[k] = walk(v[k], ft, p, errs);
  }
  return out;
}
