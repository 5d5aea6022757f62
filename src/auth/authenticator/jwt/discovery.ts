/**
 * OIDC discovery (go-oidc v2 NewProvider): the provider's configuration document from
 * `<issuer url without trailing />/.well-known/openid-configuration`, or exactly `discoveryURL` when set; its
 * `issuer` must be the configured URL, and its `jwks_uri` says where the keys are.
 */
import { type GetOptions, httpsGet } from './http-get.ts';

export const WELL_KNOWN_PATH = '/.well-known/openid-configuration';

export interface ProviderMetadata {
  readonly issuer: string;
  readonly jwksURL: string;
}

export function discoveryLocation(issuerURL: string, discoveryURL: string): string {
  return discoveryURL !== '' ? discoveryURL : issuerURL.replace(/\/+$/, '') + WELL_KNOWN_PATH;
}

export async function discover(issuerURL: string, discoveryURL: string, opts: GetOptions): Promise<ProviderMetadata> {
  const res = await httpsGet(discoveryLocation(issuerURL, discoveryURL), opts);
  if (res.status !== 200) throw new Error(`${res.statusText}: ${res.body}`);
  let doc: { issuer?: unknown; jwks_uri?: unknown };
  try {
    doc = JSON.parse(res.body) as typeof doc;
    if (doc === null || typeof doc !== 'object') throw new Error('not a JSON object');
  } catch (e) {
    throw new Error(`oidc: failed to decode provider discovery object: ${(e as Error).message}`);
  }
  const issuer = typeof doc.issuer === 'string' ? doc.issuer : '';
  if (issuer !== issuerURL) throw new Error(`oidc: issuer did not match the issuer returned by provider, expected ${JSON.stringify(issuerURL)} got ${JSON.stringify(issuer)}`);
  const jwksURL = typeof doc.jwks_uri === 'string' ? doc.jwks_uri : '';
  if (jwksURL === '') throw new Error('provider did not return JWKS URL');
  return { issuer, jwksURL };
}
