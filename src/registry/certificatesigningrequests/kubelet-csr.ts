/**
 * Upstream's node certificate shapes (`pkg/apis/certificates/v1` helpers ValidateKubeletClientCSR and
 * ValidateKubeletServingCSR): what a node's client and serving requests must say, with upstream's texts. The
 * signer refuses the rest, and the approver recognizes only these.
 */
import type { ParsedCSR } from './request.ts';

const NODE_PREFIX = 'system:node:';
const sameSet = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((x) => b.includes(x)) && b.every((x) => a.includes(x));
/** Go's `%v` of a sorted []string. */
const goList = (l: string[]) => `[${[...l].sort().join(' ')}]`;

const CLIENT_USAGES = ['digital signature', 'key encipherment', 'client auth'];
const CLIENT_USAGES_NO_RSA = ['digital signature', 'client auth'];
const SERVING_USAGES = ['digital signature', 'key encipherment', 'server auth'];
const SERVING_USAGES_NO_RSA = ['digital signature', 'server auth'];

const isSystemNodes = (o: string[]) => o.length === 1 && o[0] === 'system:nodes';

/** '' when `req` is a node's client certificate request, else upstream's reason. */
export function validateKubeletClientCSR(req: ParsedCSR, usages: readonly string[]): string {
  if (!isSystemNodes(req.organizations)) return 'subject organization is not system:nodes';
  if (req.dnsNames.length) return 'DNS subjectAltNames are not allowed';
  if (req.emailAddresses.length) return 'Email subjectAltNames are not allowed';
  if (req.ipAddresses.length) return 'IP subjectAltNames are not allowed';
  if (req.uris.length) return 'URI subjectAltNames are not allowed';
  if (!req.commonName.startsWith(NODE_PREFIX)) return 'subject common name does not begin with system:node:';
  if (!sameSet(CLIENT_USAGES, usages) && !sameSet(CLIENT_USAGES_NO_RSA, usages)) return `usages did not match ${goList(CLIENT_USAGES)}`;
  return '';
}

/** '' when `req` is a node's serving certificate request, else upstream's reason. */
export function validateKubeletServingCSR(req: ParsedCSR, usages: readonly string[]): string {
  if (!isSystemNodes(req.organizations)) return 'subject organization is not system:nodes';
  if (!req.dnsNames.length && !req.ipAddresses.length) return 'DNS or IP subjectAltName is required';
  if (req.emailAddresses.length) return 'Email subjectAltNames are not allowed';
  if (req.uris.length) return 'URI subjectAltNames are not allowed';
  if (!sameSet(SERVING_USAGES, usages) && !sameSet(SERVING_USAGES_NO_RSA, usages)) return `usages did not match ${goList(SERVING_USAGES)}`;
  if (!req.commonName.startsWith(NODE_PREFIX)) return 'subject common name does not begin with system:node:';
  return '';
}

export const isKubeletClientCSR = (req: ParsedCSR, usages: readonly string[]) => validateKubeletClientCSR(req, usages) === '';
export const isKubeletServingCSR = (req: ParsedCSR, usages: readonly string[]) => validateKubeletServingCSR(req, usages) === '';
