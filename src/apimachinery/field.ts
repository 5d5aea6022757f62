/**
 * Field errors as apimachinery's `field.Error`: a type, a dotted path, the bad value and a detail. The text forms
 * (`<field>: <body>`, aggregate `[a, b]`) are what clients match on, so they follow upstream character for character.
 */

import { goQuote } from '../util/goquote.ts';

/** Re-exported: error texts elsewhere quote values the same way (one implementation, in util/goquote.ts). */
export { goQuote };

export type FieldErrorType =
  | 'FieldValueRequired'
  | 'FieldValueInvalid'
  | 'FieldValueNotSupported'
  | 'FieldValueDuplicate'
  | 'FieldValueNotFound'
  | 'FieldValueForbidden'
  | 'FieldValueTooLong'
  | 'FieldValueTooMany'
  | 'FieldValueTypeInvalid'
  | 'InternalError';

const TYPE_TEXT: Record<FieldErrorType, string> = {
  FieldValueRequired: 'Required value',
  FieldValueInvalid: 'Invalid value',
  FieldValueNotSupported: 'Unsupported value',
  FieldValueDuplicate: 'Duplicate value',
  FieldValueNotFound: 'Not found',
  FieldValueForbidden: 'Forbidden',
  FieldValueTooLong: 'Too long',
  FieldValueTooMany: 'Too many',
  FieldValueTypeInvalid: 'Invalid value',
  InternalError: 'Internal error',
};

/** Marks an error whose value is not printed (upstream `field.OmitValueType`). */
export const OMIT_VALUE = Symbol('omitValue');

/** Renders a value as Go's `%#v`-ish form upstream uses: strings quoted, numbers and booleans bare, others JSON. */
export function renderValue(v: unknown): string {
  if (typeof v === 'string') return goQuote(v);
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return String(v);
  if (v === null || v === undefined) return 'null';
  return JSON.stringify(v);
}

export class FieldError {
  constructor(
    readonly type: FieldErrorType,
    readonly field: string,
    readonly value: unknown = OMIT_VALUE,
    readonly detail = '',
  ) {}

  /** The text after `<field>: `; also the `message` of the Status cause. */
  body(): string {
    let s: string;
    switch (this.type) {
      case 'FieldValueRequired':
      case 'FieldValueForbidden':
      case 'FieldValueTooLong':
      case 'InternalError':
        s = TYPE_TEXT[this.type];
        break;
      default:
        s = this.value === OMIT_VALUE ? TYPE_TEXT[this.type] : `${TYPE_TEXT[this.type]}: ${renderValue(this.value)}`;
    }
    if (this.detail) s += `: ${this.detail}`;
    return s;
  }

  text(): string {
    return this.field ? `${this.field}: ${this.body()}` : this.body();
  }
}

export const required = (field: string, detail = '') => new FieldError('FieldValueRequired', field, OMIT_VALUE, detail);
export const invalid = (field: string, value: unknown, detail = '') => new FieldError('FieldValueInvalid', field, value, detail);
export const forbidden = (field: string, detail = '') => new FieldError('FieldValueForbidden', field, OMIT_VALUE, detail);
export const tooLong = (field: string, maxBytes: number) =>
  new FieldError('FieldValueTooLong', field, OMIT_VALUE, `may not be more than ${maxBytes} bytes`);
/** `Too many: <actual>: must have at most <max> items` (upstream field.TooMany with a known count). */
export const tooMany = (field: string, actual: number, max: number) => new FieldError('FieldValueTooMany', field, actual, `must have at most ${max} items`);
export const duplicate = (field: string, value: unknown) => new FieldError('FieldValueDuplicate', field, value);
export const notFound = (field: string, value: unknown) => new FieldError('FieldValueNotFound', field, value);
export const internal = (field: string, detail: string) => new FieldError('InternalError', field, OMIT_VALUE, detail);
export function notSupported(field: string, value: unknown, supported: string[]): FieldError {
  const detail = supported.length ? `supported values: ${supported.map((s) => goQuote(s)).join(', ')}` : '';
  return new FieldError('FieldValueNotSupported', field, value, detail);
}

/** `e1` for one error, `[e1, e2]` for several, identical texts once (apimachinery's aggregate). */
export function aggregateText(errs: FieldError[]): string {
  const seen = new Set<string>();
  const texts: string[] = [];
  for (const e of errs) {
    const t = e.text();
    if (!seen.has(t)) {
      seen.add(t);
      texts.push(t);
    }
  }
  return texts.length === 1 ? texts[0]! : `[${texts.join(', ')}]`;
}

/** Byte length as Go's len(): UTF-8 bytes. */
export function byteLength(s: string): number {
  return Buffer.byteLength(s, 'utf8');
}
