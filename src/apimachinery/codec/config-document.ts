/**
 * The first step of decoding a versioned configuration file (apimachinery's UniversalDecoder over YAML or JSON):
 * find apiVersion and kind, and refuse a document whose kind the configuration's scheme does not know, with the
 * decoder's texts. What follows (the fields) is the caller's: strict or not, typed as its Go struct.
 */
import { goQuote } from '../field.ts';
import { YAMLSyntaxError, parseYAMLBody } from './yamlbody.ts';

export interface ConfigDocument {
  readonly apiVersion: string;
  readonly kind: string;
  readonly value: Readonly<Record<string, unknown>>;
  /** Repeated keys in go-yaml's strict wording (a strict decoder refuses them; a lenient one keeps the last). */
  readonly duplicates: readonly string[];
}

/** A configuration scheme: its name as upstream's decoder prints it, and the kinds it registers per apiVersion. */
export interface ConfigScheme {
  /** apimachinery names a scheme after the file and line that created it (`pkg/server/options/admission.go:51`). */
  readonly name: string;
  registered(apiVersion: string, kind: string): boolean;
}

/** Go's encoding/json output for a decoded YAML value: compact, map keys sorted (sigs.k8s.io/yaml's YAMLToJSON). */
export function goJSON(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(goJSON).join(',')}]`;
  if (v !== null && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o).sort().map((k) => `${JSON.stringify(k)}:${goJSON(o[k])}`).join(',')}}`;
  }
  return JSON.stringify(v ?? null);
}

function jsonKind(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return 'number';
  if (typeof v === 'boolean') return 'bool';
  return 'string';
}

/** Decodes `data` (YAML or JSON) up to its type; throws Error with the text upstream's decoder gives. */
export function readConfigDocument(data: string, scheme: ConfigScheme): ConfigDocument {
  let value: unknown;
  let duplicates: string[];
  try {
    ({ value, duplicates } = parseYAMLBody(data));
  } catch (e) {
    if (e instanceof YAMLSyntaxError) throw new Error(`error converting YAML to JSON: ${e.message}`);
    throw e;
  }
  // The JSON decoder quotes the document as it saw it: JSON as given, YAML after its conversion to JSON.
  const seen = () => (/^\s*\{/.test(data) ? data : value === null || value === undefined ? '' : goJSON(value));
  if (value === null || value === undefined) throw new Error(`Object 'Kind' is missing in '${seen()}'`);
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw new Error(`couldn't get version/kind; json parse error: json: cannot unmarshal ${jsonKind(value)} into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }`);
  }
  const o = value as Record<string, unknown>;
  const kind = typeof o.kind === 'string' ? o.kind : '';
  const apiVersion = typeof o.apiVersion === 'string' ? o.apiVersion : '';
  if (kind === '') throw new Error(`Object 'Kind' is missing in '${seen()}'`);
  if (apiVersion === '') throw new Error(`Object 'apiVersion' is missing in '${seen()}'`);
  if (!scheme.registered(apiVersion, kind)) {
    throw new Error(`no kind ${goQuote(kind)} is registered for version ${goQuote(apiVersion)} in scheme ${goQuote(scheme.name)}`);
  }
  return { apiVersion, kind, value: o, duplicates };
}
