/**
 * Validation of an EncryptionConfiguration, rule by rule as upstream's `ValidateEncryptionConfiguration`
 * (apiserver `pkg/apis/apiserver/validation/validation_encryption.go`), with its field paths and texts: operators
 * search for them. Two differences, both about secrets and ambiguity:
 * - upstream prints a provider element that names no or several providers as a Go value, keys included; here its
 *   secrets read `REDACTED`, so a mistake never copies a key into a log;
 * - two keys of one provider with the same name are refused (`Duplicate value`): upstream accepts them and then
 *   reads with whichever comes first, so the second key could never be used.
 */
import { FieldError, OMIT_VALUE, duplicate, invalid, required } from '../apimachinery/field.ts';
import type { EncryptionConfiguration, Key, KMSConfiguration, ProviderConfiguration } from './encryption-types.ts';

const AES_KEY_SIZES = [16, 24, 32];
/** The spec's rule (reference decision 3): AES-CBC keys are 32 bytes, where upstream accepts any AES size. */
const AES_CBC_KEY_SIZES = [32];
const SECRETBOX_KEY_SIZES = [32];

const OVERLAP = "using overlapping resources such as 'secrets' and '*.' in the same resource list is not allowed as they will be masked";
const DUPLICATE_RESOURCE = 'the same resource cannot be specified multiple times';
const EVENTS_GROUP = "'*.events.k8s.io' objects are stored using the 'events' API group in etcd. Use 'events' instead in the config file";
const EXTENSIONS_GROUP = "'extensions' group has been removed and cannot be used for encryption";
const STAR_RESOURCE = "use '*.' to encrypt all the resources from core API group or *.* to encrypt all resources";
const NON_REST = 'resources which do not have REST API/s cannot be encrypted';
const CAPITALS = 'resource name should not contain capital letters';
const ACROSS_GROUPS = 'encrypting the same resource across groups is not supported';
const NO_PROVIDER = 'provider does not contain any of the expected providers: KMS, AESGCM, AESCBC, Secretbox, Identity';
const SEVERAL_PROVIDERS = 'more than one provider specified in a single element, should split into different list elements';

/** `resource.group` split at the first dot (apimachinery `schema.ParseGroupResource`): `secrets` is core, `*.` the core group. */
export function parseGroupResource(s: string): { group: string; resource: string } {
  const i = s.indexOf('.');
  return i < 0 ? { group: '', resource: s } : { group: s.slice(i + 1), resource: s.slice(0, i) };
}

/** Go's `%v` of an int slice: `[16 24 32]`. */
const goInts = (xs: number[]) => `[${xs.join(' ')}]`;

/** Upstream's field paths and texts; `reload` makes KMS v1 names unique too (as upstream with automatic reload). */
export function validateEncryptionConfiguration(c: EncryptionConfiguration, reload: boolean): FieldError[] {
  const errs: FieldError[] = [];
  if (c.resources.length === 0) return [required('resources', 'at least one resources is required')];
  const kmsNames = new Set<string>();
  c.resources.forEach((conf, i) => {
    const r = `resources[${i}].resources`;
    const p = `resources[${i}].providers`;
    if (conf.resources.length === 0) errs.push(required(r, `at least one ${r} is required`));
    errs.push(...validateResourceOverlap(conf.resources, r), ...validateResourceNames(conf.resources, r));
    if (conf.providers.length === 0) errs.push(required(p, `at least one ${p} is required`));
    conf.providers.forEach((provider, j) => {
      const path = `${p}[${j}]`;
      errs.push(...validateSingleProvider(provider, path));
      if (provider.kms) {
        errs.push(...validateKMS(provider.kms, `${path}.kms`, kmsNames, reload));
        kmsNames.add(provider.kms.name);
      } else if (provider.aesgcm) errs.push(...validateKeys(provider.aesgcm.keys, `${path}.aesgcm.keys`, AES_KEY_SIZES));
      else if (provider.aescbc) errs.push(...validateKeys(provider.aescbc.keys, `${path}.aescbc.keys`, AES_CBC_KEY_SIZES));
      else if (provider.secretbox) errs.push(...validateKeys(provider.secretbox.keys, `${path}.secretbox.keys`, SECRETBOX_KEY_SIZES));
    });
  });
  return errs;
}

function validateResourceOverlap(resources: string[], path: string): FieldError[] {
  if (resources.length < 2) return [];
  const grs = resources.map(parseGroupResource);
  let overlap = false;
  let dup = false;
  for (let i = 0; i < grs.length; i++) {
    for (let j = 0; j < grs.length; j++) {
      if (i === j) continue;
      const a = grs[i]!;
      const b = grs[j]!;
      if (a.group === b.group && a.resource === b.resource && !dup) {
        dup = true;
        continue;
      }
      if (overlap) continue;
      if (a.group === '*' && a.resource === '*') {
        overlap = true;
        continue;
      }
      if (a.group !== b.group) continue;
      if (a.resource === '*' || b.resource === '*') overlap = true;
    }
  }
  const errs: FieldError[] = [];
  if (dup) errs.push(invalid(path, resources, DUPLICATE_RESOURCE));
  if (overlap) errs.push(invalid(path, resources, OVERLAP));
  return errs;
}

function validateResourceNames(resources: string[], path: string): FieldError[] {
  const errs: FieldError[] = [];
  resources.forEach((res, j) => {
    const at = `${path}[${j}]`;
    if (res.toLowerCase() !== res) return void errs.push(invalid(at, res, CAPITALS));
    if (res === '*') return void errs.push(invalid(at, res, STAR_RESOURCE));
    if (res === 'apiserveripinfo' || res === 'serviceipallocations' || res === 'servicenodeportallocations') return void errs.push(invalid(at, res, NON_REST));
    const gr = parseGroupResource(res);
    // Upstream's rule for its events group: those objects are stored as core Events. Ours are stored once, under
    // events.events.cluster.io, and both spellings name them (see encryption.ts), so nothing is refused for them.
    if (gr.group === 'events.k8s.io') return void errs.push(invalid(at, res, EVENTS_GROUP));
    if (gr.group === 'extensions') return void errs.push(invalid(at, res, EXTENSIONS_GROUP));
    if (gr.group === '*' && gr.resource !== '*') errs.push(invalid(at, res, ACROSS_GROUPS));
  });
  return errs;
}

/** The provider as upstream prints it in an error, its secrets hidden. */
function printable(p: ProviderConfiguration): unknown {
  const keys = (k: { keys: Key[] }) => ({ keys: k.keys.map((x) => ({ name: x.name, secret: 'REDACTED' })) });
  return {
    ...(p.aesgcm ? { aesgcm: keys(p.aesgcm) } : {}),
    ...(p.aescbc ? { aescbc: keys(p.aescbc) } : {}),
    ...(p.secretbox ? { secretbox: keys(p.secretbox) } : {}),
    ...(p.identity ? { identity: {} } : {}),
    ...(p.kms ? { kms: { apiVersion: p.kms.apiVersion, name: p.kms.name, endpoint: p.kms.endpoint, timeout: p.kms.timeout } } : {}),
  };
}

function validateSingleProvider(p: ProviderConfiguration, path: string): FieldError[] {
  const found = [p.kms, p.aesgcm, p.aescbc, p.secretbox, p.identity].filter((x) => x !== undefined).length;
  if (found === 0) return [invalid(path, printable(p), NO_PROVIDER)];
  if (found > 1) return [invalid(path, printable(p), SEVERAL_PROVIDERS)];
  return [];
}

function validateKeys(keys: Key[], path: string, sizes: number[]): FieldError[] {
  if (keys.length === 0) return [required(path, 'at least one keys is required')];
  const errs: FieldError[] = [];
  const names = new Set<string>();
  keys.forEach((key, i) => {
    const at = `${path}[${i}]`;
    if (key.name === '') errs.push(required(`${at}.name`, 'name is a mandatory field for a key'));
    else if (names.has(key.name)) errs.push(duplicate(`${at}.name`, key.name));
    names.add(key.name);
    if (key.secret === '') return void errs.push(required(`${at}.secret`, 'secret is a mandatory field for a key'));
    const bytes = decodeStdBase64(key.secret);
    if (!bytes) return void errs.push(invalid(`${at}.secret`, 'REDACTED', 'secrets must be base64 encoded'));
    if (!sizes.includes(bytes.length)) {
      errs.push(invalid(`${at}.secret`, 'REDACTED', `secret is not of the expected length, got ${bytes.length}, expected one of ${goInts(sizes)}`));
    }
  });
  return errs;
}

/**
 * Go's base64.StdEncoding.DecodeString: padded standard alphabet only (Node's decoder skips anything it does not
 * know, which would turn a typo into a shorter key). Newlines are ignored, as Go's decoder ignores \r and \n.
 */
export function decodeStdBase64(s: string): Buffer | undefined {
  const t = s.replace(/[\r\n]/g, '');
  if (t.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(t)) return undefined;
  const b = Buffer.from(t, 'base64');
  // Non-zero bits after the last full byte are refused by Go (strict padding is off, but the round trip must hold).
  return b.toString('base64') === t ? b : undefined;
}

function validateKMS(c: KMSConfiguration, path: string, names: Set<string>, reload: boolean): FieldError[] {
  const errs: FieldError[] = [];
  // name
  if (c.name === '') errs.push(required(`${path}.name`, 'name is a mandatory field for a provider'));
  if (c.apiVersion !== 'v1' && c.name.includes(':')) errs.push(invalid(`${path}.name`, c.name, `invalid KMS provider name ${c.name}, must not contain ':'`));
  if ((reload || c.apiVersion !== 'v1') && names.has(c.name)) errs.push(invalid(`${path}.name`, c.name, `duplicate KMS provider name ${c.name}, names must be unique`));
  // timeout: a Go Duration is a Stringer, which field errors print bare (`Invalid value: -1s: …`)
  if (c.timeoutMs <= 0) errs.push(new FieldError('FieldValueInvalid', `${path}.timeout`, OMIT_VALUE, `${c.timeout}: timeout should be a positive value`));
  // endpoint
  if (c.endpoint === '') errs.push(invalid(`${path}.endpoint`, '', 'endpoint is a mandatory field for a kms'));
  else {
    const scheme = urlScheme(c.endpoint);
    if (scheme !== 'unix') errs.push(invalid(`${path}.endpoint`, c.endpoint, `unsupported scheme "${scheme}" for KMS provider, only unix is supported`));
  }
  // cachesize
  if (c.apiVersion !== 'v1' && c.cachesize !== undefined) errs.push(invalid(`${path}.cachesize`, c.cachesize, 'cachesize is not supported in v2'));
  if (c.apiVersion === 'v1' && c.cachesize === 0) errs.push(invalid(`${path}.cachesize`, 0, 'cachesize should be a positive value, or negative to disable'));
  // apiVersion (upstream prints the word, not the value: kept)
  if (c.apiVersion !== 'v1' && c.apiVersion !== 'v2') errs.push(invalid(`${path}.apiVersion`, c.apiVersion, 'unsupported apiVersion apiVersion for KMS provider, only v1 and v2 are supported'));
  return errs;
}

/** The scheme Go's url.Parse finds (lower-cased; empty when there is none). */
function urlScheme(raw: string): string {
  const m = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(raw);
  return m ? m[1]!.toLowerCase() : '';
}
