/**
 * The Kubernetes format library (upstream `apiserver/pkg/cel/library/format.go`, in the base environment since 1.31):
 * `format.<name>()` for each named format, `format.named(string)` (optional: none for an unknown name), and
 * `<NamedFormat>.validate(string)`, which is none for a valid string and otherwise the list of what is wrong with it,
 * in apimachinery's words. cel-js refuses dotted function names, so `format` is a constant of a namespace type whose
 * methods these are (as library.ts does for `sets`).
 *
 * The formats: dns1123Label, dns1123Subdomain, dns1035Label, qualifiedName, their `…Prefix` forms for generated-name
 * prefixes (a trailing dash is allowed, as apimachinery's maskTrailingDash allows it), labelValue, and the CRD formats
 * uri (Go's url.ParseRequestURI), uuid, byte (standard base64), date (RFC 3339 full-date) and datetime, with
 * go-openapi strfmt's checks and messages.
 */
import { Optional, type Environment } from '@marcbachmann/cel-js';
import { isDNS1035Label, isDNS1123Label, isDNS1123Subdomain, isLabelValue, isQualifiedName } from '../apimachinery/validation/content.ts';
import { parseGoURL } from '../util/gourl.ts';
import { charge, traversalCost } from './cost.ts';

/** A named format (cel type `kubernetes.NamedFormat`). */
export class NamedFormat {
  constructor(
    readonly name: string,
    readonly validate: (s: string) => string[],
  ) {}
}

class FormatNamespace {}

/** apimachinery's maskTrailingDash: a name prefix may end in '-' (it drops two characters, as upstream does). */
const maskTrailingDash = (s: string) => (s.length > 1 && s.endsWith('-') ? `${s.slice(0, -2)}a` : s);

function requestURIError(s: string): string[] {
  const r = parseGoURL(s);
  if (r.error !== undefined) return [r.error];
  if (r.url.scheme === '' && !r.url.path.startsWith('/')) return [`parse ${JSON.stringify(s)}: invalid URI for request`];
  return [];
}

const UUID = /^(?:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[0-9a-f]{32})$/i;
/** Go's base64.StdEncoding: padded, line breaks ignored. */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** strfmt IsDate: Go's time.Parse with `2006-01-02` (a real calendar day). */
function isDate(s: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (mo < 1 || mo > 12 || d < 1) return false;
  return d <= new Date(Date.UTC(y, mo, 0)).getUTCDate();
}

/** strfmt IsDateTime: a date, `t`, then `hh:mm:ss[.frac]` and `z` or `±hh:mm`, case-insensitively. */
function isDateTime(s: string): boolean {
  if (s.length < 4) return false;
  const parts = s.toLowerCase().split('t');
  if (parts.length < 2 || !isDate(parts[0]!)) return false;
  const m = /^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$/.exec(parts[1]!);
  return m !== null && m[1]! <= '23' && m[2]! <= '59' && m[3]! <= '59';
}

const check = (ok: (s: string) => boolean, message: string) => (s: string) => (ok(s) ? [] : [message]);

/** Upstream's ConstantFormats, by the name `format.<name>()` and `format.named()` know them. */
export const FORMATS: Readonly<Record<string, NamedFormat>> = {
  dns1123Label: new NamedFormat('DNS1123Label', isDNS1123Label),
  dns1123Subdomain: new NamedFormat('DNS1123Subdomain', isDNS1123Subdomain),
  dns1035Label: new NamedFormat('DNS1035Label', isDNS1035Label),
  qualifiedName: new NamedFormat('QualifiedName', isQualifiedName),
  dns1123LabelPrefix: new NamedFormat('DNS1123LabelPrefix', (s) => isDNS1123Label(maskTrailingDash(s))),
  dns1123SubdomainPrefix: new NamedFormat('DNS1123SubdomainPrefix', (s) => isDNS1123Subdomain(maskTrailingDash(s))),
  dns1035LabelPrefix: new NamedFormat('DNS1035LabelPrefix', (s) => isDNS1035Label(maskTrailingDash(s))),
  labelValue: new NamedFormat('LabelValue', isLabelValue),
  uri: new NamedFormat('URI', requestURIError),
  uuid: new NamedFormat('uuid', check((s) => UUID.test(s), 'does not match the UUID format')),
  byte: new NamedFormat('byte', check((s) => BASE64.test(s.replace(/[\r\n]/g, '')), 'invalid base64')),
  date: new NamedFormat('date', check(isDate, 'invalid date')),
  datetime: new NamedFormat('datetime', check(isDateTime, 'invalid datetime')),
};

export function registerFormatLibrary(env: Environment): void {
  const fn = (signature: string, handler: (...args: never[]) => unknown) => env.registerFunction(signature, handler as never);
  env.registerType('kubernetes.NamedFormat', NamedFormat);
  env.registerType('FormatNamespace', FormatNamespace);
  env.registerConstant('format', 'FormatNamespace', new FormatNamespace());
  for (const [name, f] of Object.entries(FORMATS)) fn(`FormatNamespace.${name}(): kubernetes.NamedFormat`, () => f);
  fn('FormatNamespace.named(string): optional<kubernetes.NamedFormat>', (_ns: FormatNamespace, name: string) => {
    const f = Object.hasOwn(FORMATS, name) ? FORMATS[name] : undefined;
    return f ? Optional.of(f) : Optional.none();
  });
  fn('kubernetes.NamedFormat.validate(string): optional<list<string>>', (f: NamedFormat, s: string) => {
    charge(traversalCost(s.length));
    const errs = f.validate(s);
    return errs.length ? Optional.of(errs) : Optional.none();
  });
}
