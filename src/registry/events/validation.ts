/**
 * Event validation for create and update, in upstream's emission order (kubernetes
 * `pkg/apis/core/validation/events.go` behind apiserver's `rest.ValidateCreate` / `rest.ValidateUpdate`).
 * Field paths use the names of the API the client wrote through (team decision 5): events.cluster.io/v1 names
 * (`note`, `regarding.namespace`, `deprecatedCount`...) in `events` mode, core/v1 names (`message`,
 * `involvedObject.namespace`, `reportingComponent`) in `core` mode; cause types and message bodies are upstream's.
 * Events arrive decoded and canonical, in the stored (events.cluster.io/v1) form: times are normalized strings
 * (MicroTime with 6 digits) or null for the zero time.
 *
 * `core` mode is upstream's rule for requests through core/v1: only the legacy checks (part A), for backwards
 * compatibility — no strict create rules, no series checks, no immutable fields.
 */
import type { Event, EventSource, ObjectReference } from '../../apis/events/v1/types.ts';
import { byteLength, type FieldError, invalid, required } from '../../apimachinery/field.ts';
import { isDNS1123Subdomain, isQualifiedName, nameIsDNSSubdomain } from '../../apimachinery/validation/content.ts';
import { validateCoreObjectMeta, validateCoreObjectMetaUpdate } from '../../apimachinery/validation/core.ts';
import { validateImmutableField } from '../../apimachinery/validation/objectmeta.ts';

export const REPORTING_INSTANCE_LENGTH_LIMIT = 128;
export const ACTION_LENGTH_LIMIT = 128;
export const REASON_LENGTH_LIMIT = 128;
export const NOTE_LENGTH_LIMIT = 1024;
export const EVENT_TYPES: readonly string[] = ['Normal', 'Warning'];

/**
 * Namespaces that may hold an Event about a cluster-scoped object. Upstream accepts `default` and `kube-system`;
 * team decision 6 adds `core-system`, our name for the system namespace.
 */
export const CLUSTER_SCOPED_EVENT_NAMESPACES: ReadonlySet<string> = new Set(['default', 'core-system', 'kube-system']);

/** Which API a write came through: the strict events.cluster.io/v1 rules, or the legacy rules of core/v1. */
export type EventValidationMode = 'events' | 'core';

/** The field names part A reports, per API (upstream's core paths are `involvedObject.namespace` and `message`). */
const LEGACY_PATHS: Record<EventValidationMode, { regardingNamespace: string; reportingController: string; note: string }> = {
  events: { regardingNamespace: 'regarding.namespace', reportingController: 'reportingController', note: 'note' },
  // Upstream names the internal `reportingController` here; decision 5 names the field core clients send.
  core: { regardingNamespace: 'involvedObject.namespace', reportingController: 'reportingComponent', note: 'message' },
};

const NOT_MATCHING_NAMESPACE = 'does not match event.namespace';
const NEEDS_TO_BE_UNSET = 'needs to be unset';
const tooManyChars = (n: number) => `can have at most ${n} characters`;

/** Checks every Event passes, whatever API it came through (upstream legacyValidateEvent, part A). */
function legacyValidateEvent(ev: Event, mode: EventValidationMode): FieldError[] {
  const paths = LEGACY_PATHS[mode];
  const errs: FieldError[] = [];
  const ns = ev.metadata.namespace ?? '';
  const regardingNs = ev.regarding?.namespace ?? '';
  if (!ev.eventTime) {
    // Old-style Events: the Event lives in its object's namespace ("" or default for cluster-scoped objects).
    if (regardingNs === '' ? ns !== '' && ns !== 'default' : ns !== regardingNs) {
      errs.push(invalid(paths.regardingNamespace, regardingNs, NOT_MATCHING_NAMESPACE));
    }
  } else {
    if (regardingNs === '' && !CLUSTER_SCOPED_EVENT_NAMESPACES.has(ns)) {
      errs.push(invalid(paths.regardingNamespace, regardingNs, NOT_MATCHING_NAMESPACE));
    }
    const controller = ev.reportingController ?? '';
    if (controller === '') errs.push(required(paths.reportingController));
    for (const msg of isQualifiedName(controller)) errs.push(invalid(paths.reportingController, controller, msg));
    pushLengthChecks(errs, 'reportingInstance', ev.reportingInstance, REPORTING_INSTANCE_LENGTH_LIMIT);
    pushLengthChecks(errs, 'action', ev.action, ACTION_LENGTH_LIMIT);
    pushLengthChecks(errs, 'reason', ev.reason, REASON_LENGTH_LIMIT);
    if (byteLength(ev.note ?? '') > NOTE_LENGTH_LIMIT) errs.push(invalid(paths.note, '', tooManyChars(NOTE_LENGTH_LIMIT)));
  }
  // Upstream names this path `namespace`, not `metadata.namespace`.
  for (const msg of isDNS1123Subdomain(ns)) errs.push(invalid('namespace', ns, msg));
  return errs;
}

/** Required when empty, and `Invalid value: ""` (upstream never shows the long value) when over `limit` bytes. */
function pushLengthChecks(errs: FieldError[], path: string, value: string | undefined, limit: number): void {
  const len = byteLength(value ?? '');
  if (len === 0) errs.push(required(path));
  if (len > limit) errs.push(invalid(path, '', tooManyChars(limit)));
}

function validateSeries(ev: Event): FieldError[] {
  const errs: FieldError[] = [];
  if (ev.series != null) {
    if ((ev.series.count ?? 0) < 2) errs.push(invalid('series.count', '', 'should be at least 2'));
    if (!ev.series.lastObservedTime) errs.push(required('series.lastObservedTime'));
  }
  return errs;
}

/**
 * Create: part A, then (events mode) ObjectMeta with DNS-subdomain names and part B. The generic ObjectMeta checks
 * follow in the store when this finds nothing (rest.BeforeCreate), so the more specific messages here win.
 */
export function validateEventCreate(ev: Event, mode: EventValidationMode = 'events'): FieldError[] {
  const errs = legacyValidateEvent(ev, mode);
  if (mode === 'core') return errs;
  errs.push(...validateCoreObjectMeta(ev.metadata, true, nameIsDNSSubdomain));
  errs.push(...validateSeries(ev));
  if (!ev.eventTime) errs.push(required('eventTime'));
  const type = ev.type ?? '';
  if (!EVENT_TYPES.includes(type)) errs.push(invalid('type', '', `has invalid value: ${type}`));
  if (ev.deprecatedFirstTimestamp) errs.push(invalid('deprecatedFirstTimestamp', '', NEEDS_TO_BE_UNSET));
  if (ev.deprecatedLastTimestamp) errs.push(invalid('deprecatedLastTimestamp', '', NEEDS_TO_BE_UNSET));
  if ((ev.deprecatedCount ?? 0) !== 0) errs.push(invalid('deprecatedCount', '', NEEDS_TO_BE_UNSET));
  if (ev.deprecatedSource?.component || ev.deprecatedSource?.host) errs.push(invalid('deprecatedSource', '', NEEDS_TO_BE_UNSET));
  return errs;
}

/**
 * Error values show the internal (core) Go structs as Go's JSON encoder renders them: no json tags, so Go field
 * names, every field present.
 */
function internalRef(r: ObjectReference | null | undefined): Record<string, string> | null {
  if (r == null) return null;
  return {
    Kind: r.kind ?? '',
    Namespace: r.namespace ?? '',
    Name: r.name ?? '',
    UID: r.uid ?? '',
    APIVersion: r.apiVersion ?? '',
    ResourceVersion: r.resourceVersion ?? '',
    FieldPath: r.fieldPath ?? '',
  };
}

function internalSource(s: EventSource | undefined): Record<string, string> {
  return { Component: s?.component ?? '', Host: s?.host ?? '' };
}

/** Deep equality of the normalized plain values above (strings, numbers, null, flat records). */
const sameValue = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

function immutable(errs: FieldError[], path: string, newVal: unknown, oldVal: unknown): void {
  errs.push(...validateImmutableField(newVal, oldVal, path, sameValue));
}

function seriesOf(ev: Event): [number, string | null] | null {
  return ev.series == null ? null : [ev.series.count ?? 0, ev.series.lastObservedTime || null];
}

/**
 * Update (after the store's generic ObjectMeta checks, as rest.BeforeUpdate): part A on the new object; then (events mode only)
 * ObjectMeta update rules, the series (only when it changed; removing it is allowed), and the immutable fields.
 * `reason` is compared twice upstream, so a changed reason yields two identical causes (one line in the message,
 * which de-duplicates).
 */
export function validateEventUpdate(ev: Event, old: Event, mode: EventValidationMode = 'events'): FieldError[] {
  const errs = legacyValidateEvent(ev, mode);
  if (mode === 'core') return errs;
  errs.push(...validateCoreObjectMetaUpdate(ev.metadata, old.metadata));
  if (!sameValue(seriesOf(ev), seriesOf(old))) errs.push(...validateSeries(ev));

  immutable(errs, 'regarding', internalRef(ev.regarding ?? {}), internalRef(old.regarding ?? {}));
  immutable(errs, 'reason', ev.reason ?? '', old.reason ?? '');
  immutable(errs, 'note', ev.note ?? '', old.note ?? '');
  immutable(errs, 'deprecatedSource', internalSource(ev.deprecatedSource), internalSource(old.deprecatedSource));
  immutable(errs, 'deprecatedFirstTimestamp', ev.deprecatedFirstTimestamp || null, old.deprecatedFirstTimestamp || null);
  immutable(errs, 'deprecatedLastTimestamp', ev.deprecatedLastTimestamp || null, old.deprecatedLastTimestamp || null);
  immutable(errs, 'deprecatedCount', ev.deprecatedCount ?? 0, old.deprecatedCount ?? 0);
  immutable(errs, 'reason', ev.reason ?? '', old.reason ?? '');
  immutable(errs, 'type', ev.type ?? '', old.type ?? '');
  immutable(errs, 'eventTime', ev.eventTime || null, old.eventTime || null);
  immutable(errs, 'action', ev.action ?? '', old.action ?? '');
  immutable(errs, 'related', internalRef(ev.related), internalRef(old.related));
  immutable(errs, 'reportingController', ev.reportingController ?? '', old.reportingController ?? '');
  immutable(errs, 'reportingInstance', ev.reportingInstance ?? '', old.reportingInstance ?? '');
  return errs;
}
