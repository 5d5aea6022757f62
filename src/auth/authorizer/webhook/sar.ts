/**
 * SubjectAccessReview bodies as webhooks expect them (`authorization.k8s.io`, the group real webhook servers check):
 * the v1 spec built from the request's attributes, its v1beta1 form (`group` instead of `groups`), and the status of
 * an answer, read strictly enough that a malformed answer is an error rather than a silent NoOpinion.
 */
import type { SubjectAccessReviewSpec } from '../../../cel/authorization.ts';
import type { Attributes } from '../interface.ts';

export const SAR_GROUP = 'authorization.k8s.io';

export interface SubjectAccessReviewStatus {
  allowed: boolean;
  denied?: boolean;
  reason?: string;
  evaluationError?: string;
}

/** Upstream's Authorize: user fields, then resource or non-resource attributes; empty fields left out (omitempty). */
export function specFor(a: Attributes): SubjectAccessReviewSpec {
  const spec: SubjectAccessReviewSpec = {};
  if (a.isResourceRequest) {
    const ra: NonNullable<SubjectAccessReviewSpec['resourceAttributes']> = {};
    if (a.namespace) ra.namespace = a.namespace;
    if (a.verb) ra.verb = a.verb;
    if (a.apiGroup) ra.group = a.apiGroup;
    if (a.apiVersion) ra.version = a.apiVersion;
    if (a.resource) ra.resource = a.resource;
    if (a.subresource) ra.subresource = a.subresource;
    if (a.name) ra.name = a.name;
    spec.resourceAttributes = ra;
  } else {
    const nra: NonNullable<SubjectAccessReviewSpec['nonResourceAttributes']> = {};
    if (a.path) nra.path = a.path;
    if (a.verb) nra.verb = a.verb;
    spec.nonResourceAttributes = nra;
  }
  const u = a.user;
  if (u.name) spec.user = u.name;
  if (u.groups.length) spec.groups = [...u.groups];
  if (u.extra) {
    // Go marshals a map with its keys sorted; the cache key depends on it.
    const keys = Object.keys(u.extra).sort();
    if (keys.length) spec.extra = Object.fromEntries(keys.map((k) => [k, [...u.extra![k]!]]));
  }
  if (u.uid) spec.uid = u.uid;
  return spec;
}

/** The request body in `version` (`v1` or `v1beta1`), fields in Go's order. */
export function reviewBody(spec: SubjectAccessReviewSpec, version: string): string {
  const s: Record<string, unknown> = {};
  if (spec.resourceAttributes) s.resourceAttributes = spec.resourceAttributes;
  if (spec.nonResourceAttributes) s.nonResourceAttributes = spec.nonResourceAttributes;
  if (spec.user !== undefined) s.user = spec.user;
  if (spec.groups !== undefined) s[version === 'v1beta1' ? 'group' : 'groups'] = spec.groups;
  if (spec.extra !== undefined) s.extra = spec.extra;
  if (spec.uid !== undefined) s.uid = spec.uid;
  return JSON.stringify({
    kind: 'SubjectAccessReview',
    apiVersion: `${SAR_GROUP}/${version}`,
    metadata: { creationTimestamp: null },
    spec: s,
    status: { allowed: false },
  });
}

/** The cache key: the v1 spec as JSON (upstream's json.Marshal(r.Spec)). */
export function cacheKey(spec: SubjectAccessReviewSpec): string {
  return reviewBody(spec, 'v1');
}

/** Reads an answer's status; throws when it is not a SubjectAccessReview the decoder would accept. */
export function parseStatus(answer: unknown, version: string): SubjectAccessReviewStatus {
  if (answer === null || typeof answer !== 'object' || Array.isArray(answer)) throw new Error('malformed webhook answer: not a JSON object');
  const o = answer as Record<string, unknown>;
  if (o.kind !== undefined && o.kind !== 'SubjectAccessReview') throw new Error(`malformed webhook answer: kind ${JSON.stringify(o.kind)}, expected SubjectAccessReview`);
  if (o.apiVersion !== undefined && o.apiVersion !== `${SAR_GROUP}/${version}`) {
    throw new Error(`malformed webhook answer: apiVersion ${JSON.stringify(o.apiVersion)}, expected ${SAR_GROUP}/${version}`);
  }
  const st = o.status ?? {};
  if (st === null || typeof st !== 'object' || Array.isArray(st)) throw new Error('malformed webhook answer: status is not an object');
  const s = st as Record<string, unknown>;
  const bool = (k: string): boolean => {
    const v = s[k];
    if (v === undefined || v === null) return false;
    if (typeof v !== 'boolean') throw new Error(`malformed webhook answer: status.${k} is not a boolean`);
    return v;
  };
  const text = (k: string): string | undefined => {
    const v = s[k];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'string') throw new Error(`malformed webhook answer: status.${k} is not a string`);
    return v;
  };
  const out: SubjectAccessReviewStatus = { allowed: bool('allowed') };
  if (bool('denied')) out.denied = true;
  const reason = text('reason');
  if (reason) out.reason = reason;
  const evaluationError = text('evaluationError');
  if (evaluationError) out.evaluationError = evaluationError;
  return out;
}
