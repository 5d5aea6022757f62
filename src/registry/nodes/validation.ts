/**
 * Node validation (upstream `pkg/apis/core/validation` ValidateNode, ValidateNodeUpdate and validateNodeTaints)
 * for the fields this server keeps, with upstream's field paths and texts.
 */
import { isIP } from 'node:net';
import type { Node, Taint } from '../../apis/core/v1/node-types.ts';
import { FieldError, duplicate, forbidden, invalid, notSupported, required } from '../../apimachinery/field.ts';
import { isLabelValue, isQualifiedName, nameIsDNSSubdomain } from '../../apimachinery/validation/content.ts';
import { validateCoreObjectMeta, validateCoreObjectMetaUpdate } from '../../apimachinery/validation/core.ts';

const TAINT_EFFECTS = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'];
const CIDR_TEXT = 'must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)';
const PODCIDR_CHANGE = 'node updates may not change podCIDR except from "" to valid';
const PROVIDERID_CHANGE = 'node updates may not change providerID except from "" to valid';

/** The IP family (4 or 6) of a CIDR, or 0 when it is not one (Go's net.ParseCIDR: address/prefix-length). */
function cidrFamily(value: string): number {
  const slash = value.indexOf('/');
  if (slash < 0) return 0;
  const family = isIP(value.slice(0, slash));
  const bits = value.slice(slash + 1);
  if (!family || !/^\d{1,3}$/.test(bits) || Number(bits) > (family === 4 ? 32 : 128)) return 0;
  return family;
}

/**
 * Upstream validates taints under `metadata.taints` (it passes the metadata path's child), so its field paths do
 * too; kept for identical messages.
 */
function validateTaints(taints: Taint[]): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  taints.forEach((t, i) => {
    const p = `metadata.taints[${i}]`;
    for (const msg of isQualifiedName(t.key ?? '')) errs.push(invalid(`${p}.key`, t.key ?? '', msg));
    if (t.value) for (const msg of isLabelValue(t.value)) errs.push(invalid(`${p}.value`, t.value, msg));
    if (!t.effect) errs.push(required(`${p}.effect`));
    else if (!TAINT_EFFECTS.includes(t.effect)) errs.push(notSupported(`${p}.effect`, t.effect, TAINT_EFFECTS));
    const id = `${t.effect}\u0000${t.key}`;
    if (seen.has(id)) {
      errs.push(new FieldError('FieldValueDuplicate', p, t, 'taints must be unique by key and effect pair'));
    }
    seen.add(id);
  });
  return errs;
}

/** Create: the name is a DNS-1123 subdomain; taints and podCIDRs must be well formed. Status is not validated. */
export function validateNode(node: Node): FieldError[] {
  const errs = validateCoreObjectMeta(node.metadata, false, nameIsDNSSubdomain);
  const spec = node.spec ?? {};
  if (spec.taints?.length) errs.push(...validateTaints(spec.taints));
  const cidrs = spec.podCIDRs ?? [];
  const families = cidrs.map((c, i) => {
    const f = cidrFamily(c);
    if (!f) errs.push(invalid(`spec.podCIDRs[${i}]`, c, CIDR_TEXT));
    return f;
  });
  // More than one: a dual-stack pair, one of each family.
  if (cidrs.length > 1 && families.every((f) => f) && (cidrs.length > 2 || families[0] === families[1])) {
    errs.push(invalid('spec.podCIDRs', cidrs, 'may specify no more than one CIDR for each IP family'));
  }
  return errs;
}

/** Update: metadata update rules, unique addresses, podCIDRs and providerID may only be set once (by the controller that assigns them). */
export function validateNodeUpdate(node: Node, old: Node): FieldError[] {
  const errs = validateCoreObjectMetaUpdate(node.metadata, old.metadata);
  // Anyone who may update a node may write its status; upstream checks only that addresses are not repeated.
  const addresses = new Set<string>();
  (node.status?.addresses ?? []).forEach((a, i) => {
    const id = `${a.type}\u0000${a.address}`;
    if (addresses.has(id)) errs.push(duplicate(`status.addresses[${i}]`, a));
    addresses.add(id);
  });
  const oldCidrs = old.spec?.podCIDRs ?? [];
  const cidrs = node.spec?.podCIDRs ?? [];
  if (oldCidrs.length && (oldCidrs.length !== cidrs.length || oldCidrs.some((c, i) => c !== cidrs[i]))) errs.push(forbidden('spec.podCIDRs', PODCIDR_CHANGE));
  const oldID = old.spec?.providerID ?? '';
  if (oldID && oldID !== (node.spec?.providerID ?? '')) errs.push(forbidden('spec.providerID', PROVIDERID_CHANGE));
  if (node.spec?.taints?.length) errs.push(...validateTaints(node.spec.taints));
  return errs;
}
