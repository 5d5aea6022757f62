/**
 * The one nesting limit of the server, and the cheap non-recursive scans that enforce it before any parser or
 * recursive walker sees input.
 *
 * Why a limit far below upstream's 10000: V8 gives a thread about 1 MB of stack, and the recursive walkers that
 * input reaches (the yaml library's composer, strategic merge, field sets, encoders) spend up to ~1.2 KB of it per
 * level, so 10000 levels cannot be walked at all. Worse, an overflow is not always a catchable RangeError: when V8
 * compiles a regular expression near the end of the stack it aborts the process ("RegExpCompiler Allocation
 * failed"). So input is refused long before the stack is at risk: 100 levels cost at most ~120 KB, about a
 * tenth of the stack, while the deepest object this server stores (an Event with its managedFields) is 8 levels
 * deep, and the deepest patch or apply body a few more.
 */
import { Lexer, Parser } from 'yaml';

export const MAX_NESTING_DEPTH = 100;

/** The upstream-shaped tail of every depth error; clients match on `exceeded max depth`. */
export const EXCEEDED_MAX_DEPTH = `exceeded max depth of ${MAX_NESTING_DEPTH}`;

/**
 * The deepest nesting of `[`/`{` in JSON text (strings skipped), stopping early once it passes `limit`.
 * Needs no valid JSON: it is a bound for whatever a parser would build from the text.
 */
export function jsonNestingDepth(s: string | Uint8Array, limit = MAX_NESTING_DEPTH): number {
  const text = typeof s === 'string';
  const n = s.length;
  let depth = 0;
  let max = 0;
  for (let i = 0; i < n; i++) {
    const c = text ? (s as string).charCodeAt(i) : (s as Uint8Array)[i]!;
    if (c === 34) {
      // Skip the string; a backslash escapes the next character.
      for (i++; i < n; i++) {
        const d = text ? (s as string).charCodeAt(i) : (s as Uint8Array)[i]!;
        if (d === 92) i++;
        else if (d === 34) break;
      }
    } else if (c === 123 || c === 91) {
      if (++depth > max && (max = depth) > limit) return max;
    } else if ((c === 125 || c === 93) && depth > 0) depth--;
  }
  return max;
}

/**
 * How deep a parsed value nests (containers counted as JSON counts them: `{}` is 1, a scalar 0), or the first
 * depth past `limit`. Iterative. Shared substructure (YAML aliases) is walked once per reference, which is what
 * every later walker will do too.
 */
export function valueDepth(v: unknown, limit = MAX_NESTING_DEPTH): number {
  if (typeof v !== 'object' || v === null) return 0;
  const stack: unknown[] = [v];
  const depths: number[] = [1];
  let max = 0;
  while (stack.length > 0) {
    const x = stack.pop() as object;
    const d = depths.pop()!;
    if (d > max && (max = d) > limit) return max;
    const children = Array.isArray(x) ? x : Object.values(x);
    for (const c of children) {
      if (typeof c === 'object' && c !== null) {
        stack.push(c);
        depths.push(d + 1);
      }
    }
  }
  return max;
}

/** Whether a parsed value nests deeper than `limit`. */
export function valueDepthExceeds(v: unknown, limit = MAX_NESTING_DEPTH): boolean {
  return valueDepth(v, limit) > limit;
}

/**
 * How deep the collections nest that the yaml library builds from `text`, exactly up to `limit`; past it, some
 * number above `limit`. The lexer's bound decides most bodies alone. One between the limit and four times it (the
 * bound's slack: two levels for each, two columns for each with wide indentation) is measured on the library's
 * syntax tree. Its parser takes no stack per level except where a dedent closes many levels at once (~0.45 KB
 * each), so at most ~180 KB for the 400 levels it may meet here.
 */
export function yamlNestingDepth(text: string, limit = MAX_NESTING_DEPTH): number {
  const most = 4 * limit + 4;
  const bound = yamlNestingBound(text, most);
  return bound <= limit || bound > most ? bound : syntaxTreeDepth(text);
}

type CstNode = { type?: string; value?: unknown; key?: unknown; items?: { key?: unknown; value?: unknown; sep?: unknown[]; start?: unknown[] }[] };

/** The depth of the yaml library's concrete syntax tree, measured without recursion. */
export function syntaxTreeDepth(text: string): number {
  let max = 0;
  const stack: unknown[] = [];
  const depths: number[] = [];
  for (const token of new Parser().parse(text)) {
    stack.push(token);
    depths.push(0);
  }
  while (stack.length > 0) {
    const t = stack.pop() as CstNode | undefined;
    let d = depths.pop()!;
    if (t === undefined || t === null || typeof t !== 'object') continue;
    if (t.type === 'block-map' || t.type === 'block-seq' || t.type === 'flow-collection') max = Math.max(max, ++d);
    const children: unknown[] = t.type === 'document' ? [t.value] : [];
    for (const it of t.items ?? []) children.push(it.key, it.value, ...(it.sep ?? []), ...(it.start ?? []));
    for (const c of children) {
      stack.push(c);
      depths.push(d);
    }
  }
  return max;
}

/**
 * An upper bound of the collection nesting that the yaml library's parser and composer build from `text`,
 * found from its (iterative) lexer's tokens, so that the recursive stages only ever see bounded input.
 * Block context: every token (node or indicator: error recovery nests maps at each `: ` of `- : : a`) opens an
 * indentation level at its column, if deeper than the last, until a line starts left of it; a nested block collection always starts at a deeper column, except a
 * sequence that is a map's value at the map's own column, so each level counts twice.
 * Flow collections count once each, and so does every `- `, `? ` or second `: ` within one item of one (the
 * parser turns them into nested block collections) until the item ends.
 */
export function yamlNestingBound(text: string, limit = MAX_NESTING_DEPTH): number {
  const indents: number[] = [];
  // Per open flow collection: 2 × the nesting indicators of its current item, +1 once the item had its `: `.
  const flow: number[] = [];
  let flowDepth = 0; // Σ over `flow` of (1 + nesting indicators)
  let column = 0;
  let lineStart = true;
  let scalarSource = false;
  let max = 0;
  for (const lexeme of new Lexer().lex(text)) {
    const c = lexeme.charCodeAt(0);
    if (scalarSource) {
      // The source of a scalar (after its marker) may look like any token: it is text, not structure.
      scalarSource = false;
      column += lexeme.length;
      continue;
    }
    if (lexeme === '' || lexeme === '\n' || lexeme === '\r\n') {
      if (flow.length === 0) {
        column = 0;
        lineStart = true;
      }
      continue;
    }
    if (c === 32 || c === 9) {
      column += lexeme.length;
      continue;
    }
    if (c === 35) continue; // a comment runs to the end of the line
    if (lexeme === '---' || lexeme === '...' || lexeme === '\x02' || c === 37 /* % directive */) {
      // A document starts (or ends): its nesting is counted afresh.
      indents.length = flow.length = flowDepth = column = 0;
      lineStart = true;
      continue;
    }
    if (lexeme === '\x18') {
      // flow-error-end: the lexer closed unterminated flow collections at a dedent.
      flow.length = flowDepth = 0;
      continue;
    }
    if (flow.length === 0) {
      if (lineStart) {
        while (indents.length > 0 && indents[indents.length - 1]! > column) indents.pop();
        lineStart = false;
      }
      if (indents.length === 0 || indents[indents.length - 1]! < column) indents.push(column);
    }
    if (lexeme === '\x1f') {
      scalarSource = true; // a zero-width marker, not in the source
      continue;
    }
    if (flow.length > 0 && (lexeme === '-' || lexeme === '?' || lexeme === ':' || lexeme === ',')) {
      // In a flow item the first `: ` separates key and value; any other indicator nests (error recovery).
      const item = flow.length - 1;
      if (lexeme === ',') {
        flowDepth -= flow[item]! >> 1;
        flow[item] = 0;
      } else if (lexeme !== ':' || flow[item]! & 1) {
        flow[item]! += 2;
        flowDepth++;
      } else flow[item]! |= 1;
    } else if (lexeme === '[' || lexeme === '{') {
      flow.push(0);
      flowDepth++;
    } else if ((lexeme === ']' || lexeme === '}') && flow.length > 0) {
      flowDepth -= 1 + (flow.pop()! >> 1);
    }
    column += lexeme.length;
    const bound = 2 * indents.length + flowDepth;
    if (bound > max && (max = bound) > limit) return max;
  }
  return max;
}
