/**
 * Content negotiation of /statusz and /flagz (upstream `statusz/negotiate`, `flagz/negotiate`): plain text unless
 * the client asks for the structured `config.cluster.io/v1beta1` kind by all three Accept parameters g, v and as.
 * A JSON or YAML clause without them is skipped, as upstream's endpoint restrictions refuse to serve the structured
 * form unconverted; when no clause is left the answer is 406 (the
 * server's and the corelet's handlers write it, each with its own error writer).
 */
import { parseAccept } from '../media-type.ts';

export const ZPAGES_GROUP = 'config.cluster.io';
export const ZPAGES_VERSION = 'v1beta1';
export const ZPAGES_API_VERSION = `${ZPAGES_GROUP}/${ZPAGES_VERSION}`;

/** What the endpoints can write, in upstream's order (its 406 message lists them so). */
export const ZPAGE_MEDIA_TYPES: readonly string[] = ['application/json', 'application/yaml', 'text/plain'];

export type ZpageOutput = { format: 'text' } | { format: 'structured'; mediaType: 'application/json' | 'application/yaml'; pretty: boolean };

const TEXT: ZpageOutput = Object.freeze({ format: 'text' });

/**
 * Picks the output for a request to the endpoint whose structured kind is `kind`; undefined when none can be served
 * (the caller answers 406 Not Acceptable listing ZPAGE_MEDIA_TYPES).
 */
export function negotiateZpage(accept: string | undefined, kind: 'Statusz' | 'Flagz'): ZpageOutput | undefined {
  if (!accept || accept.trim() === '') return TEXT;
  for (const clause of parseAccept(accept)) {
    const anyType = clause.type === '*';
    if (anyType && clause.subType !== '*') continue;
    // `*/*` and `text/*` reach the text form: the structured ones need g, v and as, which a wildcard cannot carry.
    if (anyType || (clause.type === 'text' && (clause.subType === 'plain' || clause.subType === '*'))) return TEXT;
    if (clause.type !== 'application') continue;
    const p = clause.params;
    if (p.get('g') !== ZPAGES_GROUP || p.get('v') !== ZPAGES_VERSION || p.get('as') !== kind) continue;
    if (clause.subType === 'json' || clause.subType === '*') return { format: 'structured', mediaType: 'application/json', pretty: p.get('pretty') === '1' };
    if (clause.subType === 'yaml') return { format: 'structured', mediaType: 'application/yaml', pretty: false };
  }
  return undefined;
}
