/**
 * YAML request bodies, read as sigs.k8s.io/yaml does (go-yaml v2, YAML 1.1 scalars: `yes` → true): the first
 * document becomes JSON-like values, a repeated key keeps its last value, and repeated keys are listed in
 * go-yaml's strict wording (`line 3: key "note" already set in map`). Timestamps stay strings: the JSON step
 * upstream turns them back into their text before the schema decode parses them.
 */
import { isAlias, isCollection, isMap, isScalar, LineCounter, parseAllDocuments, visit, type Document } from 'yaml';
import { goQuote } from '../field.ts';
import { EXCEEDED_MAX_DEPTH, MAX_NESTING_DEPTH, valueDepthExceeds, yamlNestingDepth } from './nesting.ts';

/** A YAML syntax error; the message is `yaml: line N: <what>`. */
export class YAMLSyntaxError extends Error {}

export interface YAMLBody {
  value: unknown;
  /** One `line N: key "x" already set in map` per repeated key, in document order. */
  duplicates: string[];
}

// go-yaml v2 resolves neither sexagesimal numbers nor (for JSON conversion) timestamps, and its floats need a
// digit in the mantissa (the yaml package's 1.1 floats also take `e1` or `.`, which go-yaml keeps as strings).
const FLOAT = 'tag:yaml.org,2002:float';
const FLOAT_RE = /^[-+]?(?:[0-9][0-9_]*\.[0-9_]*|\.[0-9][0-9_]*)$/;
const FLOAT_EXP_RE = /^[-+]?(?:[0-9][0-9_]*(?:\.[0-9_]*)?|\.[0-9][0-9_]*)[eE][-+]?[0-9]+$/;
type TagLike = { tag?: string; format?: string; test?: RegExp };
const goYamlTags = (tags: unknown[]): unknown[] =>
  (tags as TagLike[])
    .filter((t) => t.tag !== 'tag:yaml.org,2002:timestamp' && t.format !== 'TIME')
    .map((t) => {
      if (t.tag !== FLOAT || !(t.test instanceof RegExp)) return t;
      if (t.format === 'EXP') return { ...t, test: FLOAT_EXP_RE };
      return t.test.test('.') ? { ...t, test: FLOAT_RE } : t;
    });

// %#v of a scalar key, as go-yaml prints it.
function goKey(v: unknown): string {
  if (typeof v === 'string') return goQuote(v);
  if (v === null || v === undefined) return '<nil>';
  return String(v);
}

function findDuplicates(doc: Document, lc: LineCounter): string[] {
  const out: string[] = [];
  visit(doc, {
    Map(_, map) {
      const seen = new Set<string>();
      for (const pair of map.items) {
        const k = pair.key;
        const kv = isScalar(k) ? k.value : k;
        if (kv === '<<') continue;
        const id = typeof kv === 'string' ? 's:' + kv : 'o:' + JSON.stringify(kv);
        if (seen.has(id)) {
          const start = isScalar(k) && k.range ? k.range[0] : 0;
          out.push(`line ${lc.linePos(start).line}: key ${goKey(kv)} already set in map`);
        }
        seen.add(id);
      }
    },
  });
  return out;
}

const TOO_DEEP = `yaml: ${EXCEEDED_MAX_DEPTH}`;

/**
 * A map or sequence as a map key has no JSON form: sigs.k8s.io/yaml refuses it (`unsupported map key of type`).
 * The yaml library would print such keys as YAML text instead, and nested ones (`? ? ? … x`) cost time and memory
 * exponential in their depth: 50 of them in a 102-byte body took 1.5 GB before failing.
 */
function checkKeys(doc: Document): void {
  visit(doc, {
    Pair(_, pair) {
      const key = isAlias(pair.key) ? pair.key.resolve(doc) : pair.key;
      if (isCollection(key)) throw new YAMLSyntaxError(`unsupported map key of type: ${isMap(key) ? 'map[interface {}]interface {}' : '[]interface {}'}`);
    },
  });
}

/**
 * Parses a YAML body; throws YAMLSyntaxError on bad YAML. The library's parser and composer recurse once per
 * level, so the lexer's tokens are measured first (nesting.ts), and what aliases built is measured after.
 */
export function parseYAMLBody(text: string): YAMLBody {
  if (yamlNestingDepth(text) > MAX_NESTING_DEPTH) throw new YAMLSyntaxError(TOO_DEEP);
  const lc = new LineCounter();
  const docs = parseAllDocuments(text, {
    version: '1.1',
    uniqueKeys: false,
    lineCounter: lc,
    customTags: goYamlTags as never,
    prettyErrors: false,
  });
  const docList = Array.isArray(docs) ? docs : [];
  const doc = docList[0];
  if (doc === undefined) return { value: null, duplicates: [] };
  const err = doc.errors[0];
  if (err) {
    const line = lc.linePos(err.pos[0]).line;
    throw new YAMLSyntaxError(`yaml: line ${line}: ${err.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '')}`);
  }
  checkKeys(doc);
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: 1000 });
  } catch (e) {
    throw new YAMLSyntaxError(`yaml: ${(e as Error).message}`);
  }
  // An alias repeats its anchor's node where it stands, so nesting can grow past what the text shows.
  if (text.includes('*') && valueDepthExceeds(value)) throw new YAMLSyntaxError(TOO_DEEP);
  return { value: value === undefined ? null : value, duplicates: findDuplicates(doc, lc) };
}
