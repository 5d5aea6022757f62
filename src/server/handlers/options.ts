/**
 * Write options from the query (CreateOptions, UpdateOptions, PatchOptions) and DeleteOptions from body or query,
 * validated with upstream's texts (apimachinery `pkg/apis/meta/v1/validation`).
 */
import type { DeleteOptions, Preconditions } from '../../apis/meta/v1/types.ts';
import type { FieldValidation } from '../../apimachinery/codec/decode.ts';
import { checkSyntax } from '../../apimachinery/codec/jsonsyntax.ts';
import { newBadRequest, newInvalidOptions } from '../../apimachinery/errors.ts';
import { type FieldError, forbidden, invalid, notSupported, required } from '../../apimachinery/field.ts';
import { managerFromUserAgent } from '../../apimachinery/managedfields/index.ts';
import { parseBoolParam, parseIntParam } from '../../apimachinery/query.ts';
import { validateFieldManager } from '../../apimachinery/validation/objectmeta.ts';
import { featureGates } from '../../features.ts';

export interface WriteOptions {
  dryRun: boolean;
  fieldValidation: FieldValidation;
  /** As given; empty when absent (the default manager is derived from the User-Agent). */
  fieldManager: string;
}

function validateDryRun(values: string[]): FieldError[] {
  if (values.length === 0) return [];
  if (values.every((v) => v === 'All')) return [];
  return [notSupported('dryRun', values, ['All'])];
}

/**
 * CreateOptions / UpdateOptions / PatchOptions from the query string, validated in upstream's order: (patch only:
 * fieldManager required for apply, force forbidden otherwise), fieldManager, dryRun, fieldValidation.
 */
export function parseWriteOptions(kind: 'CreateOptions' | 'UpdateOptions' | 'PatchOptions', q: URLSearchParams, patch?: { apply: boolean }): WriteOptions {
  // Most writes carry no query: every option takes its default and nothing can fail (apply needs a fieldManager).
  if (q.size === 0 && !patch?.apply) return { dryRun: false, fieldValidation: 'Warn', fieldManager: '' };
  const dryRun = q.getAll('dryRun');
  const fv = q.get('fieldValidation') ?? '';
  const fm = q.get('fieldManager') ?? '';
  const errs: FieldError[] = [];
  if (patch && !patch.apply && q.has('force')) errs.push(forbidden('force', 'may not be specified for non-apply patch'));
  if (patch?.apply && fm === '') errs.push(required('fieldManager', 'is required for apply patch'));
  errs.push(...validateFieldManager(fm, 'fieldManager'));
  errs.push(...validateDryRun(dryRun));
  if (!['', 'Ignore', 'Warn', 'Strict'].includes(fv)) errs.push(notSupported('fieldValidation', fv, ['', 'Ignore', 'Strict', 'Warn']));
  if (errs.length) throw newInvalidOptions(kind, errs);
  return { dryRun: dryRun.length > 0, fieldValidation: (fv || 'Warn') as FieldValidation, fieldManager: fm };
}

/** The manager of a non-apply write: `?fieldManager`, else derived from the User-Agent (upstream managerOrUserAgent). */
export function writeManager(opts: WriteOptions, userAgent: string | undefined): string {
  if (opts.fieldManager) return opts.fieldManager;
  // A client sends the same User-Agent on every request: remember the last derivation (a per-character loop).
  if (userAgent !== lastUserAgent) {
    lastUserAgent = userAgent;
    lastManager = managerFromUserAgent(userAgent);
  }
  return lastManager;
}

let lastUserAgent: string | undefined;
let lastManager = managerFromUserAgent(undefined);

export interface PatchOptions extends WriteOptions {
  /** `force` (apply only); any value but `0`/`false` is true, as upstream's parameter codec reads booleans. */
  force: boolean;
}

/** PatchOptions for a patch of the given type. */
export function parsePatchOptions(q: URLSearchParams, apply: boolean): PatchOptions {
  const o = parseWriteOptions('PatchOptions', q, { apply });
  return { ...o, force: parseBoolParam(q.get('force')) ?? false };
}

export interface ParsedDeleteOptions {
  /**
   * `ignoreStoreReadErrorWithClusterBreakingPotential=true` with the AllowUnsafeMalformedObjectDeletion gate on
   * (with the gate off the option is dropped, as upstream drops it).
   */
  ignoreStoreReadError: boolean;
  dryRun: boolean;
  preconditions: Preconditions | undefined;
  gracePeriodSeconds: number | undefined;
  propagationPolicy: string | undefined;
  orphanDependents: boolean | undefined;
}

const UNSAFE = 'ignoreStoreReadErrorWithClusterBreakingPotential';

/** DeleteOptions come from the body when it is non-empty, else from the query; never merged (upstream). */
export function parseDeleteOptions(body: Buffer, q: URLSearchParams): ParsedDeleteOptions {
  let o: DeleteOptions;
  if (body.length > 0 && body.toString('utf8').trim() !== '') {
    o = decodeDeleteOptionsBody(body);
  } else {
    o = {};
    const grace = parseIntParam('gracePeriodSeconds', q.get('gracePeriodSeconds'));
    if (grace !== undefined) o.gracePeriodSeconds = grace;
    const orphan = parseBoolParam(q.get('orphanDependents'));
    if (orphan !== undefined) o.orphanDependents = orphan;
    const pp = q.get('propagationPolicy');
    if (pp !== null) o.propagationPolicy = pp as DeleteOptions['propagationPolicy'];
    const dr = q.getAll('dryRun');
    if (dr.length) o.dryRun = dr;
    const unsafe = parseBoolParam(q.get(UNSAFE));
    if (unsafe !== undefined) o.ignoreStoreReadErrorWithClusterBreakingPotential = unsafe;
  }
  if (!featureGates.enabled('AllowUnsafeMalformedObjectDeletion')) delete o.ignoreStoreReadErrorWithClusterBreakingPotential;
  const errs: FieldError[] = [];
  if (o.orphanDependents !== undefined && o.propagationPolicy !== undefined) {
    errs.push(invalid('propagationPolicy', o.propagationPolicy, 'orphanDependents and deletionPropagation cannot be both set'));
  }
  if (o.propagationPolicy !== undefined && !['Foreground', 'Background', 'Orphan'].includes(o.propagationPolicy)) {
    errs.push(notSupported('propagationPolicy', o.propagationPolicy, ['Foreground', 'Background', 'Orphan', 'nil']));
  }
  errs.push(...validateDryRun(o.dryRun ?? []));
  const ignoreStoreReadError = o.ignoreStoreReadErrorWithClusterBreakingPotential === true;
  if (ignoreStoreReadError) {
    // Upstream's ValidateDeleteOptions: an unsafe delete has no object to apply these to.
    const notWith = (field: string) => invalid(field, '', `can not be set together with ${UNSAFE}`);
    if ((o.dryRun?.length ?? 0) > 0) errs.push(notWith('dryRun'));
    if (o.propagationPolicy !== undefined) errs.push(notWith('propagationPolicy'));
    if (o.orphanDependents !== undefined) errs.push(notWith('orphanDependents'));
    if (o.gracePeriodSeconds !== undefined && o.gracePeriodSeconds !== 0) errs.push(notWith('gracePeriodSeconds'));
    if (o.preconditions !== undefined) errs.push(notWith('preconditions'));
  }
  if (errs.length) throw newInvalidOptions('DeleteOptions', errs);
  return {
    ignoreStoreReadError,
    dryRun: (o.dryRun?.length ?? 0) > 0,
    preconditions: o.preconditions,
    gracePeriodSeconds: o.gracePeriodSeconds,
    propagationPolicy: o.propagationPolicy,
    orphanDependents: o.orphanDependents,
  };
}

function decodeDeleteOptionsBody(body: Buffer): DeleteOptions {
  // Go's scanner first: its texts, and the nesting limit before anything else reads the body.
  const syntax = checkSyntax(body);
  if (syntax !== null) throw newBadRequest(`couldn't get version/kind; json parse error: ${syntax}`);
  const v: unknown = JSON.parse(body.toString('utf8'));
  if (typeof v !== 'object' || v === null || Array.isArray(v)) {
    throw newBadRequest('json: cannot unmarshal ' + jsonType(v) + ' into Go value of type v1.DeleteOptions');
  }
  const src = v as Record<string, unknown>;
  const out: DeleteOptions = {};
  const typeErr = (field: string, want: string) =>
    newBadRequest(`json: cannot unmarshal ${jsonType(src[field])} into Go struct field DeleteOptions.${field} of type ${want}`);
  if (src.gracePeriodSeconds != null) {
    if (!Number.isInteger(src.gracePeriodSeconds)) throw typeErr('gracePeriodSeconds', 'int64');
    out.gracePeriodSeconds = src.gracePeriodSeconds as number;
  }
  if (src.orphanDependents != null) {
    if (typeof src.orphanDependents !== 'boolean') throw typeErr('orphanDependents', 'bool');
    out.orphanDependents = src.orphanDependents;
  }
  if (src.propagationPolicy != null) {
    if (typeof src.propagationPolicy !== 'string') throw typeErr('propagationPolicy', 'v1.DeletionPropagation');
    out.propagationPolicy = src.propagationPolicy as DeleteOptions['propagationPolicy'];
  }
  if (src.dryRun != null) {
    if (!Array.isArray(src.dryRun) || !src.dryRun.every((x) => typeof x === 'string')) throw typeErr('dryRun', '[]string');
    out.dryRun = src.dryRun as string[];
  }
  if (src[UNSAFE] != null) {
    if (typeof src[UNSAFE] !== 'boolean') throw typeErr(UNSAFE, 'bool');
    out.ignoreStoreReadErrorWithClusterBreakingPotential = src[UNSAFE];
  }
  if (src.preconditions != null) {
    const p = src.preconditions;
    if (typeof p !== 'object' || Array.isArray(p)) throw typeErr('preconditions', 'v1.Preconditions');
    const pre: Preconditions = {};
    const pp = p as Record<string, unknown>;
    for (const k of ['uid', 'resourceVersion'] as const) {
      if (pp[k] == null) continue;
      if (typeof pp[k] !== 'string') {
        throw newBadRequest(`json: cannot unmarshal ${jsonType(pp[k])} into Go struct field Preconditions.preconditions.${k} of type string`);
      }
      pre[k] = pp[k] as string;
    }
    out.preconditions = pre;
  }
  return out;
}

function jsonType(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'object') return 'object';
  return typeof v;
}
