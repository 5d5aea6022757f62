/**
 * ListOptions of list, watch and deletecollection requests, decoded, defaulted and validated in the order the
 * Kubernetes API server does it, so that the first error a client sees is upstream's:
 *   1. query decoding, 400 (apimachinery parameter codec: timeoutSeconds, limit, then labelSelector, fieldSelector);
 *   2. WatchList defaulting (internalversion SetListOptionsDefaults, gate on);
 *   3. ValidateListOptions, 422 `ListOptions.meta.k8s.io "" is invalid: ...`;
 *   4. the field-label check, 400 `field label not supported: <label>` (apiserver handlers/get.go listOpts);
 *   4b. the shard selector, parsed where the registry store builds its predicate (gate ShardedListAndWatch on;
 *      400 `invalid shard selector: ...`, see sharding/selector.ts);
 *   5. what storage checks before reading (storage.ValidateListOptions and the watch cache): continue token,
 *      resourceVersion together with continue, resourceVersion syntax.
 */
import { newBadRequest, newInvalidOptions } from './errors.ts';
import type { FieldError } from './field.ts';
import { forbidden, notSupported } from './field.ts';
import { decodeContinue } from './continue.ts';
import { parseFieldSelector } from './fields/selector.ts';
import type { FieldSelector } from './fields/selector.ts';
import { parseLabelSelector } from './labels/selector.ts';
import type { LabelSelector } from './labels/selector.ts';
import { parseBoolParam, parseIntParam } from './query.ts';
import { parseResourceVersion, parseStorageResourceVersion } from './resource-version.ts';
import { parseShardSelector } from './sharding/selector.ts';
import type { ShardSelector } from './sharding/selector.ts';
import { featureGates } from '../features.ts';

export type ResourceVersionMatch = '' | 'Exact' | 'NotOlderThan';

export interface ListOptions {
  /** Absent when the selector is absent or empty (it then selects everything). */
  labelSelector?: LabelSelector;
  /** Absent when the selector is absent or empty (it then selects everything). */
  fieldSelector?: FieldSelector;
  /** Absent when the parameter is absent or empty. */
  resourceVersion?: string;
  /** Absent when the parameter is absent or empty; after defaulting, `NotOlderThan` for watch-list requests. */
  resourceVersionMatch?: ResourceVersionMatch;
  /** 0 when absent; ≤ 0 means no limit. */
  limit: number;
  /** Absent when the parameter is absent or empty. */
  continue?: string;
  /** True on `/watch/` paths and when the `watch` parameter is true. */
  watch: boolean;
  allowWatchBookmarks: boolean;
  timeoutSeconds?: number;
  /** As sent, or `true` when defaulted (see parseListOptions). */
  sendInitialEvents?: boolean;
  /** resourceVersion as a number; 0 when absent or "0". */
  resourceVersionNumber: number;
  /**
   * Set when the ShardedListAndWatch gate is on and the parameter is non-empty; with the gate off the parameter
   * is ignored, as upstream ignores fields of disabled features.
   */
  shardSelector?: ShardSelector;
  /** The decoded continue token (lists only). */
  continueFrom?: { rv: number; start: string };
}

const VALID_LIST_MATCHES = ['Exact', 'NotOlderThan', ''];

/** apimachinery ValidateListOptions for a non-watch request. */
function validateList(rv: string, match: string, cont: string, sendInitialEvents: boolean | undefined): FieldError[] {
  const errs: FieldError[] = [];
  if (match) {
    if (!rv) errs.push(forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden unless resourceVersion is provided'));
    if (cont) errs.push(forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided'));
    if (match !== 'Exact' && match !== 'NotOlderThan') errs.push(notSupported('resourceVersionMatch', match, VALID_LIST_MATCHES));
    if (match === 'Exact' && rv === '0') {
      errs.push(forbidden('resourceVersionMatch', 'resourceVersionMatch "exact" is forbidden for resourceVersion "0"'));
    }
  }
  if (sendInitialEvents !== undefined) errs.push(forbidden('sendInitialEvents', 'sendInitialEvents is forbidden for list'));
  return errs;
}

/** apimachinery validateWatchOptions with the WatchList gate on. */
function validateWatch(match: string, cont: string, sendInitialEvents: boolean | undefined): FieldError[] {
  const errs: FieldError[] = [];
  if (sendInitialEvents !== undefined && match !== 'NotOlderThan') {
    errs.push(forbidden('resourceVersionMatch', 'sendInitialEvents requires setting resourceVersionMatch to NotOlderThan'));
  }
  if (match) {
    if (sendInitialEvents === undefined) {
      errs.push(forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided'));
    }
    if (match !== 'NotOlderThan') errs.push(notSupported('resourceVersionMatch', match, ['NotOlderThan']));
    if (cont) errs.push(forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided'));
  }
  return errs;
}

/**
 * Decodes and validates the list/watch query. Unknown parameters are ignored; a repeated parameter counts with
 * its first value.
 *
 * Upstream quirks kept on purpose: defaulting and validation look at the `watch` parameter only, so a `/watch/`
 * path without `?watch=true` is validated as a list (sendInitialEvents there is 422 "forbidden for list") and gets
 * no WatchList defaulting. Defaulting: a watch (by parameter) with neither sendInitialEvents nor
 * resourceVersionMatch and with resourceVersion unset or "0" gets sendInitialEvents=true and
 * resourceVersionMatch=NotOlderThan. For watches a malformed resourceVersion is the watch cache's untyped error
 * (500, no reason); for lists it is a 400, and the continue token is decoded here (400 `invalid continue token: ...`).
 */
export function parseListOptions(
  q: URLSearchParams,
  opts: { watchPath: boolean; supportedFieldLabels: ReadonlySet<string> },
): ListOptions {
  // 1. decoding, in the field order of the generated url.Values conversion, then the selector conversions
  const watchParam = parseBoolParam(q.get('watch')) ?? false;
  const allowWatchBookmarks = parseBoolParam(q.get('allowWatchBookmarks')) ?? false;
  const rv = q.get('resourceVersion') ?? '';
  let match = q.get('resourceVersionMatch') ?? '';
  const timeoutSeconds = parseIntParam('timeoutSeconds', q.get('timeoutSeconds'));
  const limit = parseIntParam('limit', q.get('limit')) ?? 0;
  const cont = q.get('continue') ?? '';
  let sendInitialEvents = parseBoolParam(q.get('sendInitialEvents'));
  const labelSelector = parseLabelSelector(q.get('labelSelector') ?? '');
  const fieldSelector = parseFieldSelector(q.get('fieldSelector') ?? '');

  // 2. WatchList defaulting
  if (watchParam && sendInitialEvents === undefined && !match && (rv === '' || rv === '0')) {
    sendInitialEvents = true;
    match = 'NotOlderThan';
  }

  // 3. validation
  const errs = watchParam ? validateWatch(match, cont, sendInitialEvents) : validateList(rv, match, cont, sendInitialEvents);
  if (errs.length) throw newInvalidOptions('ListOptions', errs);

  // 4. field labels, in the selector's (sorted) term order
  for (const r of fieldSelector.requirements) {
    if (!opts.supportedFieldLabels.has(r.field)) throw newBadRequest(`field label not supported: ${r.field}`);
  }

  const out: ListOptions = {
    limit,
    watch: opts.watchPath || watchParam,
    allowWatchBookmarks,
    resourceVersionNumber: 0,
  };
  if (!labelSelector.isEmpty()) out.labelSelector = labelSelector;
  if (!fieldSelector.isEmpty()) out.fieldSelector = fieldSelector;
  if (rv) out.resourceVersion = rv;
  if (match) out.resourceVersionMatch = match as ResourceVersionMatch;
  if (cont) out.continue = cont;
  if (timeoutSeconds !== undefined) out.timeoutSeconds = timeoutSeconds;
  if (sendInitialEvents !== undefined) out.sendInitialEvents = sendInitialEvents;

  // 4b. shard selector
  const shard = q.get('shardSelector') ?? '';
  if (shard !== '' && featureGates.enabled('ShardedListAndWatch')) out.shardSelector = parseShardSelector(shard);

  // 5. storage-level checks
  if (out.watch) {
    out.resourceVersionNumber = parseStorageResourceVersion(rv);
  } else if (cont) {
    out.continueFrom = decodeContinue(cont);
    if (rv && rv !== '0') throw newBadRequest('specifying resource version is not allowed when using continue');
  } else {
    out.resourceVersionNumber = parseResourceVersion(rv);
  }
  return out;
}
