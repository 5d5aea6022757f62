/**
 * The `shardSelector` list/watch parameter (alpha, feature gate ShardedListAndWatch): a CEL expression of
 * `shardRange(<path>, '<start>', '<end>')` terms joined by `||`. An object matches when the 64-bit FNV-1a hash
 * of the path's value lies in [start, end) of any term. Parsing walks the CEL parse tree as apiserver
 * pkg/sharding/parser.go does, with its messages, except where the spec decides otherwise (team decision 3):
 * a bound is `0x` and 1 to 16 hex digits, or `0x10000000000000000` (2^64), so `'0x0'` is valid, and a malformed
 * selector is a 400 BadRequest (upstream answers 500).
 */
import { newBadRequest } from '../errors.ts';
import type { StatusError } from '../errors.ts';
import { goQuote } from '../../util/goquote.ts';
import { CelSyntaxError, EXPR_KIND, parseCel } from './cel-syntax.ts';
import type { Expr } from './cel-syntax.ts';
import { fnv1a64Halves, formatShardHex } from './hash.ts';

export type ShardField = 'object.metadata.uid' | 'object.metadata.namespace';

/** One `shardRange` term: hashes in [start, end) match. */
export interface ShardRange {
  readonly start: bigint;
  readonly end: bigint;
}

export interface ShardSelector {
  /** The field every term hashes (all terms must name the same one). */
  readonly field: ShardField;
  /** The terms in the order given. */
  readonly ranges: readonly ShardRange[];
  /** Whether the FNV-1a 64 hash of `value` (the object's UID or namespace) lies in any of the ranges. */
  matches(value: string): boolean;
  /**
   * The canonical form, as list responses report it in `metadata.shardInfo.selector`: the terms in order as
   * `shardRange(<path>, '<start>', '<end>')` joined by ` || `, bounds as `0x` and 16 lowercase hex digits.
   */
  toString(): string;
}

const FIELDS: readonly string[] = ['object.metadata.uid', 'object.metadata.namespace'];

function invalid(detail: string): StatusError {
  return newBadRequest(`invalid shard selector: ${detail}`);
}

/** A term with its bounds split into 32-bit halves, so that matching stays off bigint. */
interface CompiledRange {
  startHi: number;
  startLo: number;
  endHi: number;
  endLo: number;
}

function compile(r: ShardRange): CompiledRange {
  const split = (n: bigint) => [Number(n >> 32n), Number(n & 0xffffffffn)] as const;
  const [startHi, startLo] = split(r.start);
  const [endHi, endLo] = split(r.end); // 2^64 gives endHi = 2^32, above every hash
  return { startHi, startLo, endHi, endLo };
}

class Selector implements ShardSelector {
  readonly #compiled: CompiledRange[];
  constructor(readonly field: ShardField, readonly ranges: readonly ShardRange[]) {
    this.#compiled = ranges.map(compile);
  }

  matches(value: string): boolean {
    const [hi, lo] = fnv1a64Halves(value);
    for (const r of this.#compiled) {
      const atLeastStart = hi > r.startHi || (hi === r.startHi && lo >= r.startLo);
      const belowEnd = hi < r.endHi || (hi === r.endHi && lo < r.endLo);
      if (atLeastStart && belowEnd) return true;
    }
    return false;
  }

  toString(): string {
    return this.ranges
      .map((r) => `shardRange(${this.field}, '${formatShardHex(r.start)}', '${formatShardHex(r.end)}')`)
      .join(' || ');
  }
}

/**
 * Parses a shardSelector parameter. Throws a 400 BadRequest `invalid shard selector: <detail>` for an empty
 * (whitespace-only) or malformed one; the caller treats an absent or empty parameter as "no selector".
 */
export function parseShardSelector(s: string): ShardSelector {
  const expr = s.trim();
  if (expr === '') throw invalid('empty shard selector is not allowed; omit the parameter for unfiltered lists');
  let tree: Expr;
  try {
    tree = parseCel(expr);
  } catch (e) {
    if (e instanceof CelSyntaxError) throw invalid(`CEL parse error: ${e.message}`);
    throw e;
  }
  const terms: { field: string; range: ShardRange }[] = [];
  walk(tree, terms);
  const first = terms[0]!.field;
  for (const t of terms) {
    if (t.field !== first) throw invalid(`all shard ranges must use the same field, got ${goQuote(first)} and ${goQuote(t.field)}`);
  }
  return new Selector(first as ShardField, terms.map((t) => t.range));
}

/** The root must be a shardRange() call or a tree of `||` over such calls. */
function walk(e: Expr, out: { field: string; range: ShardRange }[]): void {
  if (e.kind !== 'call') {
    throw invalid(`unexpected expression kind ${EXPR_KIND[e.kind]}; expected shardRange() call or || operator`);
  }
  if (e.fn === '_||_') {
    walk(e.args[0]!, out);
    walk(e.args[1]!, out);
  } else if (e.fn === 'shardRange') {
    out.push(shardRange(e.args));
  } else {
    throw invalid(`unsupported function ${goQuote(e.fn)}; only shardRange() and || are allowed`);
  }
}

/** A shardRange(path, start, end) call; a member call (`x.shardRange(a, b)`) counts its arguments only, as upstream. */
function shardRange(args: Expr[]): { field: string; range: ShardRange } {
  if (args.length !== 3) throw invalid(`shardRange() requires exactly 3 arguments, got ${args.length}`);
  const field = fieldPath(args[0]!);
  if (!FIELDS.includes(field)) {
    throw invalid(`unsupported field path ${goQuote(field)}; supported: object.metadata.uid, object.metadata.namespace`);
  }
  const [startText, start] = hexBound(args[1]!, 'hexStart');
  const [endText, end] = hexBound(args[2]!, 'hexEnd');
  if (start >= end) throw invalid(`shard range start ${startText} must be less than end ${endText}`);
  return { field, range: { start, end } };
}

function fieldPath(e: Expr): string {
  if (e.kind === 'ident') return e.name;
  if (e.kind === 'select') return `${fieldPath(e.operand)}.${e.field}`;
  throw invalid(`shardRange() first argument: expected field path (e.g. object.metadata.uid), got expression kind ${EXPR_KIND[e.kind]}`);
}

/** A bound: a string literal `0x` + 1..16 lowercase hex digits, or exactly `0x10000000000000000`. */
function hexBound(e: Expr, name: 'hexStart' | 'hexEnd'): [text: string, value: bigint] {
  if (e.kind !== 'literal') throw invalid(`${name} must be a string literal (e.g. '0xff'), got expression kind ${EXPR_KIND[e.kind]}`);
  if (e.literal.goType !== 'string') throw invalid(`${name} must be a string literal, got ${e.literal.goType}`);
  const s = e.literal.value;
  if (!s.startsWith('0x')) throw invalid(`${name} must have '0x' prefix, got ${goQuote(s)}`);
  const hex = s.slice(2);
  if (hex === '') throw invalid(`${name}: hex value is required after '0x'`);
  const bytes = Buffer.byteLength(hex, 'utf8'); // Go's len() counts bytes
  if (bytes > 17) throw invalid(`${name}: hex value too long (${bytes} chars, max 17): ${goQuote(hex)}`);
  for (const c of hex) {
    if (!/[0-9a-f]/.test(c)) throw invalid(`${name}: invalid hex character ${goQuote(c)} in ${goQuote(s)}`);
  }
  if (hex.length === 17 && s !== '0x10000000000000000') {
    throw invalid(`${name}: 17-digit hex value must be '0x10000000000000000' (2^64), got ${goQuote(s)}`);
  }
  return [s, BigInt(s)]; // at most 2^64: 17 digits can only be 2^64 here
}
