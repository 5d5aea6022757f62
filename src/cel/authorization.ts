/**
 * CEL for the match conditions of authorization webhooks (upstream `apiserver/pkg/authorization/cel`): one variable,
 * `request`, the SubjectAccessReview v1 `spec` of the request being authorized (`kubernetes.SubjectAccessReviewSpec`:
 * resourceAttributes or nonResourceAttributes, user, groups, extra, uid). An expression must be statically `bool`.
 * Fields that are not set (nonResourceAttributes of a resource request) are absent, so `has()` tells them apart and
 * selecting through one is an evaluation error, as with upstream's unstructured object.
 */
import { compile, evaluate, newEnvironment, type CompiledExpression } from './environment.ts';
import { PER_CALL_LIMIT } from './cost.ts';
import { withEscapedLookup } from './escaping.ts';

export const REQUEST_VAR = 'request';

/** The v1 SubjectAccessReview spec, as a webhook receives it (JSON field names). */
export interface SubjectAccessReviewSpec {
  resourceAttributes?: ResourceAttributes;
  nonResourceAttributes?: NonResourceAttributes;
  user?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
  uid?: string;
}

export interface ResourceAttributes {
  namespace?: string;
  verb?: string;
  group?: string;
  version?: string;
  resource?: string;
  subresource?: string;
  name?: string;
}

export interface NonResourceAttributes {
  path?: string;
  verb?: string;
}

class CELResourceAttributes {
  constructor(
    readonly namespace: string,
    readonly verb: string,
    readonly group: string,
    readonly version: string,
    readonly resource: string,
    readonly subresource: string,
    readonly name: string,
  ) {}
}

class CELNonResourceAttributes {
  constructor(
    readonly path: string,
    readonly verb: string,
  ) {}
}

/** Selector types are declared so that upstream's expressions over them compile; requests here never carry them. */
class CELSelectorRequirement {
  constructor(
    readonly key: string,
    readonly operator: string,
    readonly values: string[],
  ) {}
}
class CELSelectorAttributes {
  constructor(
    readonly rawSelector: string,
    readonly requirements: CELSelectorRequirement[],
  ) {}
}

class CELSubjectAccessReviewSpec {
  resourceAttributes?: CELResourceAttributes;
  nonResourceAttributes?: CELNonResourceAttributes;
  constructor(
    readonly user: string,
    readonly groups: string[],
    readonly extra: Record<string, string[]>,
    readonly uid: string,
  ) {}
}

const env = newEnvironment((e) => {
  e.registerType('kubernetes.SelectorRequirement', { ctor: CELSelectorRequirement, fields: { key: 'string', operator: 'string', values: 'list<string>' } });
  e.registerType('kubernetes.FieldSelectorAttributes', { ctor: CELSelectorAttributes, fields: { rawSelector: 'string', requirements: 'list<kubernetes.SelectorRequirement>' } });
  e.registerType('kubernetes.LabelSelectorAttributes', { ctor: class extends CELSelectorAttributes {}, fields: { rawSelector: 'string', requirements: 'list<kubernetes.SelectorRequirement>' } });
  e.registerType('kubernetes.ResourceAttributes', {
    ctor: CELResourceAttributes,
    fields: {
      namespace: 'string',
      verb: 'string',
      group: 'string',
      version: 'string',
      resource: 'string',
      subresource: 'string',
      name: 'string',
      fieldSelector: 'kubernetes.FieldSelectorAttributes',
      labelSelector: 'kubernetes.LabelSelectorAttributes',
    },
  });
  e.registerType('kubernetes.NonResourceAttributes', { ctor: CELNonResourceAttributes, fields: { path: 'string', verb: 'string' } });
  e.registerType('kubernetes.SubjectAccessReviewSpec', {
    ctor: CELSubjectAccessReviewSpec,
    fields: {
      resourceAttributes: 'kubernetes.ResourceAttributes',
      nonResourceAttributes: 'kubernetes.NonResourceAttributes',
      user: 'string',
      groups: 'list<string>',
      extra: 'map<string, list<string>>',
      uid: 'string',
    },
  });
  e.registerVariable(REQUEST_VAR, 'kubernetes.SubjectAccessReviewSpec');
});

/** A compiled match condition, or upstream's detail for an Invalid field error. */
export type MatchConditionCompileResult = { readonly compiled: CompiledExpression; readonly error?: undefined } | { readonly compiled?: undefined; readonly error: string };

/** cel-go prints parameterised types with parentheses: `list(string)`, `map(string, dyn)`. */
const celGoTypeName = (t: string) => t.replaceAll('<', '(').replaceAll('>', ')');

export function compileMatchCondition(expression: string): MatchConditionCompileResult {
  const outcome = compile(env, expression);
  if (outcome.error !== undefined) return { error: `compilation failed: ${outcome.error}` };
  if (outcome.compiled.outputType !== 'bool') return { error: `must evaluate to bool but got ${celGoTypeName(outcome.compiled.outputType)}` };
  return { compiled: outcome.compiled };
}

/**
 * The value of `request` for a spec. Every string field is present (empty when unset), as upstream converts the
 * spec with all its fields; only the two attribute blocks may be absent.
 */
export function celRequest(spec: SubjectAccessReviewSpec): unknown {
  const r = new CELSubjectAccessReviewSpec(spec.user ?? '', spec.groups ?? [], withEscapedLookup(spec.extra ?? {}), spec.uid ?? '');
  const ra = spec.resourceAttributes;
  if (ra) r.resourceAttributes = new CELResourceAttributes(ra.namespace ?? '', ra.verb ?? '', ra.group ?? '', ra.version ?? '', ra.resource ?? '', ra.subresource ?? '', ra.name ?? '');
  const nra = spec.nonResourceAttributes;
  if (nra) r.nonResourceAttributes = new CELNonResourceAttributes(nra.path ?? '', nra.verb ?? '');
  return r;
}

/** Evaluates one condition against a request built by celRequest; throws the evaluation error. */
export function evaluateMatchCondition(compiled: CompiledExpression, request: unknown, limit = PER_CALL_LIMIT): unknown {
  return evaluate(compiled, { [REQUEST_VAR]: request }, limit);
}
