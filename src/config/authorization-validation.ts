/**
 * Validation of an AuthorizationConfiguration with upstream's rules, field paths and texts
 * (`apiserver/pkg/apis/apiserver/validation/validation.go` ValidateAuthorizationConfiguration, and kube-apiserver's
 * own name check in `pkg/kubeapiserver/authorizer/config.go`), compiling every match condition on the way so that a
 * configuration that loads cannot fail to compile later.
 *
 * Where the spec decides otherwise: authorizer names are DNS-1123 labels (upstream: subdomains); the spec's
 * `coreConfigFile` is accepted for `kubeConfigFile`. Webhook fields are reported under `authorizers[i]` directly
 * (`authorizers[0].timeout`), as upstream passes the authorizer's path, not the `webhook` field's.
 */
import { statSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import { duplicate, FieldError, forbidden, invalid, notSupported, required, tooMany } from '../apimachinery/field.ts';
import { isDNS1123Label } from '../apimachinery/validation/content.ts';
import { formatGoDuration } from '../apimachinery/duration.ts';
import { compileMatchCondition } from '../cel/authorization.ts';
import type { CompiledExpression } from '../cel/environment.ts';
import {
  type AuthorizationConfiguration,
  CONNECTION_CORE_CONFIG_FILE,
  CONNECTION_IN_CLUSTER,
  CONNECTION_KUBECONFIG_FILE,
  FAILURE_POLICY_DENY,
  FAILURE_POLICY_NO_OPINION,
  KNOWN_TYPES,
  MAX_MATCH_CONDITIONS,
  MAX_WEBHOOK_TIMEOUT_MS,
  REPEATABLE_TYPES,
  TYPE_WEBHOOK,
  type WebhookConfiguration,
} from './authorization-types.ts';

export interface CompiledAuthorizationConfiguration {
  readonly config: AuthorizationConfiguration;
  /** Per authorizer (same index), the compiled match conditions of a webhook; empty for the others. */
  readonly matchConditions: readonly (readonly CompiledExpression[])[];
  /** Field errors first, then kube-apiserver's own checks (`expected name …`); empty when valid. */
  readonly errors: readonly string[];
}

/**
 * A field error whose value Go prints as JSON of a struct without tags (`{"Type":"x","KubeConfigFile":null}`),
 * which renderValue (JSON of our lower-case field names) would not reproduce.
 */
class RawValueFieldError extends FieldError {
  constructor(
    field: string,
    private readonly raw: string,
    detail: string,
  ) {
    super('FieldValueNotSupported', field, raw, detail);
  }
  override body(): string {
    return `Unsupported value: ${this.raw}: ${this.detail}`;
  }
}

export function compileAndValidateAuthorizationConfiguration(c: AuthorizationConfiguration): CompiledAuthorizationConfiguration {
  const errs: FieldError[] = [];
  const matchConditions: CompiledExpression[][] = c.authorizers.map(() => []);
  if (c.authorizers.length === 0) errs.push(required('authorizers', 'at least one authorization mode must be defined'));
  const seenTypes = new Set<string>();
  const seenNames = new Set<string>();
  c.authorizers.forEach((a, i) => {
    const path = `authorizers[${i}]`;
    if (a.type === '') return void errs.push(required(`${path}.type`));
    if (!(KNOWN_TYPES as readonly string[]).includes(a.type)) return void errs.push(notSupported(`${path}.type`, a.type, [...KNOWN_TYPES]));
    if (seenTypes.has(a.type) && !(REPEATABLE_TYPES as readonly string[]).includes(a.type)) return void errs.push(duplicate(`${path}.type`, a.type));
    seenTypes.add(a.type);
    if (a.name === '') errs.push(required(`${path}.name`));
    else if (seenNames.has(a.name)) errs.push(duplicate(`${path}.name`, a.name));
    else {
      const msgs = isDNS1123Label(a.name);
      if (msgs.length) errs.push(invalid(`${path}.name`, a.name, `authorizer name is invalid: ${msgs.join(', ')}`));
    }
    seenNames.add(a.name);
    if (a.type === TYPE_WEBHOOK) {
      if (!a.webhook) return void errs.push(required(`${path}.webhook`, 'required when type=Webhook'));
      matchConditions[i] = validateWebhook(a.webhook, path, errs);
    } else if (a.webhook) {
      errs.push(invalid(`${path}.webhook`, 'non-null', 'may only be specified when type=Webhook'));
    }
  });
  const texts = errs.map((e) => e.text());
  if (texts.length === 0) texts.push(...nameChecks(c));
  return { config: c, matchConditions, errors: texts };
}

/**
 * kube-apiserver's check after validation: an authorizer that is not a webhook is named after its type in lower
 * case, as the flags name it (`rbac`), so metrics read the same whichever way the chain was configured.
 */
function nameChecks(c: AuthorizationConfiguration): string[] {
  const out: string[] = [];
  for (const a of c.authorizers) {
    if (a.type === TYPE_WEBHOOK) continue;
    const expected = a.type.toLowerCase();
    if (a.name !== expected) out.push(`expected name ${expected} for authorizer ${a.type} instead of ${a.name}`);
  }
  return out;
}

function validateWebhook(w: WebhookConfiguration, path: string, errs: FieldError[]): CompiledExpression[] {
  if (w.timeoutMs === 0) errs.push(required(`${path}.timeout`));
  else if (w.timeoutMs > MAX_WEBHOOK_TIMEOUT_MS || w.timeoutMs < 0) errs.push(invalid(`${path}.timeout`, formatGoDuration(w.timeoutMs), 'must be > 0s and <= 30s'));
  // Zero TTLs were defaulted at decoding (5m, 30s), so only a negative one is left to refuse.
  if (w.authorizedTTLMs < 0) errs.push(invalid(`${path}.authorizedTTL`, formatGoDuration(w.authorizedTTLMs), 'must be > 0s'));
  if (w.unauthorizedTTLMs < 0) errs.push(invalid(`${path}.unauthorizedTTL`, formatGoDuration(w.unauthorizedTTLMs), 'must be > 0s'));
  if (w.subjectAccessReviewVersion === '') errs.push(required(`${path}.subjectAccessReviewVersion`));
  else if (!['v1', 'v1beta1'].includes(w.subjectAccessReviewVersion)) errs.push(notSupported(`${path}.subjectAccessReviewVersion`, w.subjectAccessReviewVersion, ['v1', 'v1beta1']));
  if (w.matchConditionSubjectAccessReviewVersion === '') {
    if (w.matchConditions.length > 0) errs.push(required(`${path}.matchConditionSubjectAccessReviewVersion`, 'required if match conditions are specified'));
  } else if (w.matchConditionSubjectAccessReviewVersion !== 'v1') {
    errs.push(notSupported(`${path}.matchConditionSubjectAccessReviewVersion`, w.matchConditionSubjectAccessReviewVersion, ['v1']));
  }
  if (w.failurePolicy === '') errs.push(required(`${path}.failurePolicy`));
  else if (w.failurePolicy !== FAILURE_POLICY_NO_OPINION && w.failurePolicy !== FAILURE_POLICY_DENY) {
    errs.push(notSupported(`${path}.failurePolicy`, w.failurePolicy, [FAILURE_POLICY_NO_OPINION, FAILURE_POLICY_DENY]));
  }
  const ci = w.connectionInfo;
  const file = ci.kubeConfigFile;
  const filePath = `${path}.connectionInfo.${ci.spelledAs ?? 'kubeConfigFile'}`;
  if (ci.bothSpellings) errs.push(forbidden(`${path}.connectionInfo.coreConfigFile`, 'may not be set together with kubeConfigFile (the same field, spelled as upstream)'));
  switch (ci.type) {
    case '':
      errs.push(required(`${path}.connectionInfo.type`));
      break;
    case CONNECTION_IN_CLUSTER:
      if (file !== undefined) errs.push(invalid(filePath, file, 'can only be set when type=KubeConfigFile'));
      // Upstream's kube-apiserver has no in-cluster client for itself either; this server has no cluster at all.
      else errs.push(notSupported(`${path}.connectionInfo.type`, ci.type, [CONNECTION_KUBECONFIG_FILE]));
      break;
    case CONNECTION_KUBECONFIG_FILE:
    case CONNECTION_CORE_CONFIG_FILE:
      if (file === undefined || file === '') errs.push(required(filePath));
      else if (!isAbsolute(file)) errs.push(invalid(filePath, file, 'must be an absolute path'));
      else {
        const problem = fileProblem(file);
        if (problem) errs.push(invalid(filePath, file, problem));
      }
      break;
    default:
      errs.push(
        new RawValueFieldError(
          `${path}.connectionInfo.type`,
          JSON.stringify({ Type: ci.type, KubeConfigFile: file ?? null }),
          `supported values: "${CONNECTION_IN_CLUSTER}", "${CONNECTION_KUBECONFIG_FILE}"`,
        ),
      );
  }
  return compileConditions(w, path, errs);
}

/** `error loading file: stat <path>: no such file or directory` (Go's *PathError) or `must be a regular file`. */
function fileProblem(file: string): string | undefined {
  try {
    return statSync(file).isFile() ? undefined : 'must be a regular file';
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    const reason = err.code === 'ENOENT' ? 'no such file or directory' : err.code === 'EACCES' ? 'permission denied' : err.code === 'ENOTDIR' ? 'not a directory' : err.message;
    return `error loading file: stat ${file}: ${reason}`;
  }
}

function compileConditions(w: WebhookConfiguration, path: string, errs: FieldError[]): CompiledExpression[] {
  if (w.matchConditions.length > MAX_MATCH_CONDITIONS) {
    errs.push(tooMany(`${path}.matchConditions`, w.matchConditions.length, MAX_MATCH_CONDITIONS));
    return [];
  }
  const seen = new Set<string>();
  const out: CompiledExpression[] = [];
  w.matchConditions.forEach((m, i) => {
    const p = `${path}.matchConditions[${i}].expression`;
    if (m.expression.trim() === '') return void errs.push(required(p));
    if (seen.has(m.expression)) return void errs.push(duplicate(p, m.expression));
    seen.add(m.expression);
    const r = compileMatchCondition(m.expression);
    if (r.error !== undefined) errs.push(invalid(p, m.expression, r.error));
    else out.push(r.compiled);
  });
  return out;
}
