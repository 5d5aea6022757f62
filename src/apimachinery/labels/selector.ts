/**
 * Label selectors (`?labelSelector=`), parsed and matched as apimachinery `pkg/labels/selector.go` does. The parser
 * is a port of upstream's recursive descent so that every error text (returned to clients as a 400) is the same.
 */
import { newBadRequest } from '../errors.ts';
import { aggregateText, FieldError, invalid } from '../field.ts';
import { isGoInt64, goParseInt } from '../strconv.ts';
import { isLabelValue, isQualifiedName } from '../validation/content.ts';
import { scan, Token } from './lexer.ts';
import type { ScannedItem } from './lexer.ts';

export type LabelOperator = 'exists' | '!' | '=' | '==' | '!=' | 'in' | 'notin' | 'gt' | 'lt';

export interface LabelRequirement {
  readonly key: string;
  readonly operator: LabelOperator;
  /** Sorted and unique, as upstream's string set. */
  readonly values: readonly string[];
}

export interface LabelSelector {
  readonly requirements: readonly LabelRequirement[];
  matches(labels: Readonly<Record<string, string>> | undefined): boolean;
  isEmpty(): boolean;
  /** The value a `key=v`, `key==v` or `key in (v)` requirement pins the label to, if any. */
  requiresExactMatch(label: string): string | undefined;
  toString(): string;
}

/** The text of an error returned by Go's `labels.Parse`; wrapped in a 400 by parseLabelSelector. */
class ParseError extends Error {}

const BINARY_OPERATORS = 'in, notin, =, ==, !=, gt, lt';

function requirementMatches(r: LabelRequirement, labels: Readonly<Record<string, string>>): boolean {
  const has = Object.hasOwn(labels, r.key);
  const value = has ? labels[r.key]! : '';
  switch (r.operator) {
    case 'in':
    case '=':
    case '==':
      return has && r.values.includes(value);
    case 'notin':
    case '!=':
      return !has || !r.values.includes(value);
    case 'exists':
      return has;
    case '!':
      return !has;
    case 'gt':
    case 'lt': {
      if (!has || !isGoInt64(value) || r.values.length !== 1) return false;
      const lv = goParseInt(value);
      const rv = goParseInt(r.values[0]!);
      return r.operator === 'gt' ? lv > rv : lv < rv;
    }
  }
}

function requirementString(r: LabelRequirement): string {
  switch (r.operator) {
    case 'exists':
      return r.key;
    case '!':
      return `!${r.key}`;
    case 'in':
    case 'notin':
      return `${r.key} ${r.operator} (${r.values.join(',')})`;
    case 'gt':
      return `${r.key}>${r.values[0]}`;
    case 'lt':
      return `${r.key}<${r.values[0]}`;
    default:
      return `${r.key}${r.operator}${r.values[0]}`;
  }
}

class Selector implements LabelSelector {
  constructor(readonly requirements: readonly LabelRequirement[]) {}

  matches(labels: Readonly<Record<string, string>> | undefined): boolean {
    const ls = labels ?? {};
    return this.requirements.every((r) => requirementMatches(r, ls));
  }

  isEmpty(): boolean {
    return this.requirements.length === 0;
  }

  requiresExactMatch(label: string): string | undefined {
    const r = this.requirements.find((x) => x.key === label);
    if (!r || !['=', '==', 'in'].includes(r.operator) || r.values.length !== 1) return undefined;
    return r.values[0];
  }

  toString(): string {
    return this.requirements.map(requirementString).join(',');
  }
}

/** Upstream's NewRequirement checks on the operands; the key was validated while parsing. */
function newRequirement(key: string, operator: LabelOperator, values: string[]): LabelRequirement {
  const errs: FieldError[] = [];
  if (operator === 'gt' || operator === 'lt') {
    values.forEach((v, i) => {
      if (!isGoInt64(v)) errs.push(invalid(`values[${i}]`, v, "for 'Gt', 'Lt' operators, the value must be an integer"));
    });
  }
  values.forEach((v, i) => {
    const msgs = isLabelValue(v);
    if (msgs.length) errs.push(invalid(`values[${i}][${key}]`, v, msgs.join('; ')));
  });
  if (errs.length) throw new ParseError(aggregateText(errs));
  return { key, operator, values };
}

class Parser {
  private pos = 0;
  constructor(private readonly items: ScannedItem[]) {}

  /** In value position `in` and `notin` are plain identifiers. */
  private static asValue(item: ScannedItem): [Token, string] {
    const tok = item.tok === Token.In || item.tok === Token.NotIn ? Token.Identifier : item.tok;
    return [tok, item.literal];
  }
  private lookahead(): [Token, string] {
    return Parser.asValue(this.items[this.pos]!);
  }
  private consume(): [Token, string] {
    return Parser.asValue(this.items[this.pos++]!);
  }
  private consumeOperatorToken(): ScannedItem {
    return this.items[this.pos++]!;
  }

  parse(): LabelRequirement[] {
    const reqs: LabelRequirement[] = [];
    for (;;) {
      const [tok, lit] = this.lookahead();
      if (tok === Token.EndOfString) return reqs;
      if (tok !== Token.Identifier && tok !== Token.DoesNotExist) {
        throw new ParseError(`found '${lit}', expected: !, identifier, or 'end of string'`);
      }
      try {
        reqs.push(this.parseRequirement());
      } catch (e) {
        if (e instanceof ParseError) throw new ParseError(`unable to parse requirement: ${e.message}`);
        throw e;
      }
      const [t, l] = this.consume();
      if (t === Token.EndOfString) return reqs;
      if (t !== Token.Comma) throw new ParseError(`found '${l}', expected: ',' or 'end of string'`);
      const [t2, l2] = this.lookahead();
      if (t2 !== Token.Identifier && t2 !== Token.DoesNotExist) {
        throw new ParseError(`found '${l2}', expected: identifier after ','`);
      }
    }
  }

  private parseRequirement(): LabelRequirement {
    let negated = false;
    let [tok, key] = this.consume();
    if (tok === Token.DoesNotExist) {
      negated = true;
      [tok, key] = this.consume();
    }
    if (tok !== Token.Identifier) throw new ParseError(`found '${key}', expected: identifier`);
    const keyErrs = isQualifiedName(key);
    // upstream validates the key against a nil field path, which Go prints as "<nil>"
    if (keyErrs.length) throw new ParseError(new FieldError('FieldValueInvalid', '<nil>', key, keyErrs.join('; ')).text());
    const [next] = this.lookahead();
    if (negated) return newRequirement(key, '!', []);
    if (next === Token.EndOfString || next === Token.Comma) return newRequirement(key, 'exists', []);

    const op = this.consumeOperatorToken();
    let operator: LabelOperator;
    switch (op.tok) {
      case Token.In: operator = 'in'; break;
      case Token.NotIn: operator = 'notin'; break;
      case Token.Equals: operator = '='; break;
      case Token.DoubleEquals: operator = '=='; break;
      case Token.NotEquals: operator = '!='; break;
      case Token.GreaterThan: operator = 'gt'; break;
      case Token.LessThan: operator = 'lt'; break;
      default: throw new ParseError(`found '${op.literal}', expected: ${BINARY_OPERATORS}`);
    }
    const values = operator === 'in' || operator === 'notin' ? this.parseValues() : this.parseExactValue();
    return newRequirement(key, operator, [...values].sort());
  }

  private parseValues(): Set<string> {
    const [tok, lit] = this.consume();
    if (tok !== Token.OpenPar) throw new ParseError(`found '${lit}' expected: '('`);
    const [next, nextLit] = this.lookahead();
    if (next === Token.ClosedPar) {
      this.consume();
      return new Set(['']); // "()" is the set holding the empty value
    }
    if (next !== Token.Identifier && next !== Token.Comma) {
      throw new ParseError(`found '${nextLit}', expected: ',', ')' or identifier`);
    }
    const set = this.parseIdentifiersList();
    this.consume(); // the ')' parseIdentifiersList stopped at
    return set;
  }

  /** A comma-separated list in which empty entries stand for the empty value: "(a,,b)", "(,a)", "(a,)". */
  private parseIdentifiersList(): Set<string> {
    const set = new Set<string>();
    for (;;) {
      const [tok, lit] = this.consume();
      if (tok === Token.Identifier) {
        set.add(lit);
        const [t2, l2] = this.lookahead();
        if (t2 === Token.ClosedPar) return set;
        if (t2 !== Token.Comma) throw new ParseError(`found '${l2}', expected: ',' or ')'`);
      } else if (tok === Token.Comma) {
        if (set.size === 0) set.add('');
        const [t2] = this.lookahead();
        if (t2 === Token.ClosedPar) {
          set.add('');
          return set;
        }
        if (t2 === Token.Comma) {
          this.consume();
          set.add('');
        }
      } else {
        throw new ParseError(`found '${lit}', expected: ',', or identifier`);
      }
    }
  }

  private parseExactValue(): Set<string> {
    const [next] = this.lookahead();
    if (next === Token.EndOfString || next === Token.Comma) return new Set(['']);
    const [tok, lit] = this.consume();
    if (tok === Token.Identifier) return new Set([lit]);
    throw new ParseError(`found '${lit}', expected: identifier`);
  }
}

/**
 * Parses `?labelSelector=`. Requirements come out sorted by key (stable), as upstream. A malformed selector is a
 * 400 BadRequest carrying the parser's text, e.g. `unable to parse requirement: found '', expected: identifier`.
 */
export function parseLabelSelector(s: string): LabelSelector {
  // The absent selector of nearly every list: no requirements, as the parser would find.
  if (s === '') return new Selector([]);
  try {
    const reqs = new Parser(scan(s)).parse();
    reqs.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    return new Selector(reqs);
  } catch (e) {
    if (e instanceof ParseError) throw newBadRequest(e.message);
    throw e;
  }
}

/** A selector that matches everything. */
export function everythingLabels(): LabelSelector {
  return new Selector([]);
}
