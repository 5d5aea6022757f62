/**
 * The label selector lexer of apimachinery `pkg/labels/selector.go`. Its quirks shape the error texts clients see,
 * so they are kept: a NUL where a token starts ends the input (inside an identifier it only ends the token), and
 * `in`/`notin` are keywords only where an operator may stand (the parser turns them back into identifiers).
 */

export enum Token {
  Error,
  EndOfString,
  ClosedPar,
  Comma,
  DoesNotExist,
  DoubleEquals,
  Equals,
  GreaterThan,
  Identifier,
  In,
  LessThan,
  NotEquals,
  NotIn,
  OpenPar,
}

export interface ScannedItem {
  tok: Token;
  literal: string;
}

const KEYWORDS: Readonly<Record<string, Token>> = {
  ')': Token.ClosedPar,
  ',': Token.Comma,
  '!': Token.DoesNotExist,
  '==': Token.DoubleEquals,
  '=': Token.Equals,
  '>': Token.GreaterThan,
  in: Token.In,
  '<': Token.LessThan,
  '!=': Token.NotEquals,
  notin: Token.NotIn,
  '(': Token.OpenPar,
};

const keyword = (s: string): Token | undefined => (Object.hasOwn(KEYWORDS, s) ? KEYWORDS[s] : undefined);
const isWhitespace = (ch: string): boolean => ch === ' ' || ch === '\t' || ch === '\r' || ch === '\n';
const isSpecialSymbol = (ch: string): boolean => '=!(),><'.includes(ch) && ch !== '';

/** Splits a selector into tokens, ending with exactly one EndOfString item. */
export function scan(s: string): ScannedItem[] {
  let pos = 0;
  // upstream reads bytes and treats byte 0 as the end of input
  const read = (): string => {
    if (pos < s.length) return s[pos++]!;
    return '\0';
  };
  const unread = (): void => {
    pos--;
  };

  const scanIdOrKeyword = (): ScannedItem => {
    let buf = '';
    for (;;) {
      const ch = read();
      if (ch === '\0') break;
      if (isSpecialSymbol(ch) || isWhitespace(ch)) {
        unread();
        break;
      }
      buf += ch;
    }
    const tok = keyword(buf);
    return { tok: tok ?? Token.Identifier, literal: buf };
  };

  const scanSpecialSymbol = (): ScannedItem => {
    let last: ScannedItem | undefined;
    let buf = '';
    for (;;) {
      const ch = read();
      if (ch === '\0') break;
      if (!isSpecialSymbol(ch)) {
        unread();
        break;
      }
      buf += ch;
      const tok = keyword(buf);
      if (tok !== undefined) last = { tok, literal: buf };
      else if (last) {
        unread();
        break;
      }
    }
    return last ?? { tok: Token.Error, literal: `error expected: keyword found '${buf}'` };
  };

  const items: ScannedItem[] = [];
  for (;;) {
    let ch = read();
    while (isWhitespace(ch)) ch = read();
    let item: ScannedItem;
    if (ch === '\0') item = { tok: Token.EndOfString, literal: '' };
    else {
      unread();
      item = isSpecialSymbol(ch) ? scanSpecialSymbol() : scanIdOrKeyword();
    }
    items.push(item);
    if (item.tok === Token.EndOfString) return items;
  }
}
