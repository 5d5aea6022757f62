/**
 * What the plain-text forms of /statusz and /flagz share (upstream zpages): a title naming the component, the
 * warning that the text is for people, and a delimiter drawn at random for every response, so that scripts parse
 * the structured form instead of the text.
 */

export const NOT_PARSEABLE_WARNING =
  'Warning: This endpoint is not meant to be machine parseable, has no formatting compatibility guarantees and is for debugging purposes only.';

/** Upstream's delimiters: a line is `<label><delimiter> <value>`. */
export const DELIMITERS: readonly string[] = [':', ': ', '=', ' '];

export function randomDelimiter(random: () => number = Math.random): string {
  return DELIMITERS[Math.floor(random() * DELIMITERS.length)] ?? ':';
}

/** An empty line, `<component> <page>`, the warning, and an empty line before the page's own lines. */
export function textHeader(component: string, page: 'statusz' | 'flagz'): string {
  return `\n${component} ${page}\n${NOT_PARSEABLE_WARNING}\n\n`;
}
