/**
 * How one rule matches one request (upstream `pkg/apis/rbac/v1/evaluation_helpers.go`) and whether a set of rules
 * covers another (`pkg/registry/rbac/validation/policy_comparator.go`): what the authorizer and escalation
 * prevention both judge by.
 */
import { goQuote } from '../../../util/goquote.ts';
import type { PolicyRule } from './types.ts';

const ALL = '*';

/** The request as rules see it (a subset of the authorizer's attributes). */
export interface RuleRequest {
  readonly isResourceRequest: boolean;
  readonly verb: string;
  readonly apiGroup: string;
  readonly resource: string;
  readonly subresource: string;
  readonly name: string;
  readonly path: string;
}

export function verbMatches(rule: PolicyRule, verb: string): boolean {
  return rule.verbs.includes(ALL) || rule.verbs.includes(verb);
}

export function apiGroupMatches(rule: PolicyRule, group: string): boolean {
  const groups = rule.apiGroups ?? [];
  return groups.includes(ALL) || groups.includes(group);
}

// `resource/subresource`, `*`, and `*/subresource` (that subresource of every resource).
export function resourceMatches(rule: PolicyRule, combined: string, subresource: string): boolean {
  for (const r of rule.resources ?? []) {
    if (r === ALL || r === combined) return true;
    if (subresource && r.length === subresource.length + 2 && r.startsWith('*/') && r.endsWith(subresource)) return true;
  }
  return false;
}

/** No names in the rule: every name (and the nameless list and create) matches. */
export function resourceNameMatches(rule: PolicyRule, name: string): boolean {
  const names = rule.resourceNames ?? [];
  return names.length === 0 || names.includes(name);
}

/** Exact, `*`, or a prefix ending in `*`. */
export function nonResourceURLMatches(rule: PolicyRule, path: string): boolean {
  return (rule.nonResourceURLs ?? []).some((u) => nonResourceURLCovers(u, path));
}

function nonResourceURLCovers(owner: string, requested: string): boolean {
  if (owner === ALL || owner === requested) return true;
  return owner.endsWith(ALL) && requested.startsWith(owner.replace(/\*+$/, ''));
}

export function ruleAllows(r: RuleRequest, rule: PolicyRule): boolean {
  if (r.isResourceRequest) {
    const combined = r.subresource ? `${r.resource}/${r.subresource}` : r.resource;
    return verbMatches(rule, r.verb) && apiGroupMatches(rule, r.apiGroup) && resourceMatches(rule, combined, r.subresource) && resourceNameMatches(rule, r.name);
  }
  return verbMatches(rule, r.verb) && nonResourceURLMatches(rule, r.path);
}

/** Every (group, resource, verb[, name]) and (url, verb) of `rule` as a rule of its own. */
export function breakdownRule(rule: PolicyRule): PolicyRule[] {
  const out: PolicyRule[] = [];
  for (const g of rule.apiGroups ?? [])
    for (const r of rule.resources ?? [])
      for (const v of rule.verbs) {
        const names = rule.resourceNames ?? [];
        if (names.length) for (const n of names) out.push({ apiGroups: [g], resources: [r], verbs: [v], resourceNames: [n] });
        else out.push({ apiGroups: [g], resources: [r], verbs: [v] });
      }
  for (const u of rule.nonResourceURLs ?? []) for (const v of rule.verbs) out.push({ nonResourceURLs: [u], verbs: [v] });
  return out;
}

const hasAll = (set: readonly string[], items: readonly string[]) => items.every((i) => set.includes(i));

function resourcesCoverAll(owned: readonly string[], wanted: readonly string[]): boolean {
  if (owned.includes(ALL)) return true;
  return wanted.every((w) => {
    if (owned.includes(w)) return true;
    const slash = w.indexOf('/');
    return slash >= 0 && owned.includes(`*${w.slice(slash)}`);
  });
}

function ruleCovers(owner: PolicyRule, sub: PolicyRule): boolean {
  const verbs = owner.verbs.includes(ALL) || hasAll(owner.verbs, sub.verbs);
  const groups = (owner.apiGroups ?? []).includes(ALL) || hasAll(owner.apiGroups ?? [], sub.apiGroups ?? []);
  const resources = resourcesCoverAll(owner.resources ?? [], sub.resources ?? []);
  const urls = (sub.nonResourceURLs ?? []).every((w) => (owner.nonResourceURLs ?? []).some((o) => nonResourceURLCovers(o, w)));
  const ownerNames = owner.resourceNames ?? [];
  const subNames = sub.resourceNames ?? [];
  const names = subNames.length === 0 ? ownerNames.length === 0 : ownerNames.length === 0 || hasAll(ownerNames, subNames);
  return verbs && groups && resources && urls && names;
}

/** Whether `owned` covers every permission of `wanted`, and the (broken down) rules it does not cover. */
export function covers(owned: readonly PolicyRule[], wanted: readonly PolicyRule[]): { covered: boolean; missing: PolicyRule[] } {
  const missing: PolicyRule[] = [];
  for (const w of wanted) for (const sub of breakdownRule(w)) if (!owned.some((o) => ruleCovers(o, sub))) missing.push(sub);
  return { covered: missing.length === 0, missing };
}

/**
 * Merges single-group, single-resource rules without names into one rule per (group, resource) with their verbs
 * (upstream CompactRules), so a missing-permissions message lists `Verbs:["get" "list"]` once.
 */
export function compactRules(rules: readonly PolicyRule[]): PolicyRule[] {
  const simple = new Map<string, PolicyRule>();
  const out: PolicyRule[] = [];
  for (const r of rules) {
    const isSimple = r.apiGroups?.length === 1 && r.resources?.length === 1 && !r.resourceNames?.length && !r.nonResourceURLs?.length;
    if (!isSimple) {
      out.push(r);
      continue;
    }
    const key = `${r.apiGroups![0]}\0${r.resources![0]}`;
    const had = simple.get(key);
    if (!had) simple.set(key, { apiGroups: [...r.apiGroups!], resources: [...r.resources!], verbs: [...r.verbs] });
    else for (const v of r.verbs) if (!had.verbs.includes(v)) had.verbs.push(v);
  }
  return [...simple.values(), ...out];
}

/** Go's %q of a []string: `["a" "b"]`. */
function quoteList(items: readonly string[]): string {
  return `[${items.map(goQuote).join(' ')}]`;
}

/** upstream CompactString: `{APIGroups:[""], Resources:["pods"], Verbs:["get"]}`. */
export function compactString(r: PolicyRule): string {
  const parts: string[] = [];
  if (r.apiGroups?.length) parts.push(`APIGroups:${quoteList(r.apiGroups)}`);
  if (r.resources?.length) parts.push(`Resources:${quoteList(r.resources)}`);
  if (r.nonResourceURLs?.length) parts.push(`NonResourceURLs:${quoteList(r.nonResourceURLs)}`);
  if (r.resourceNames?.length) parts.push(`ResourceNames:${quoteList(r.resourceNames)}`);
  if (r.verbs.length) parts.push(`Verbs:${quoteList(r.verbs)}`);
  return `{${parts.join(', ')}}`;
}
