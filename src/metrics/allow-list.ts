/**
 * `--allow-metric-labels` and `--allow-metric-labels-manifest` (component-base metrics options): per metric and label,
 * the values let through; any other value is exported as `unexpected`. Validation texts as upstream's
 * `metrics/api/v1` validation; the flag wins over the manifest.
 */
import { readFileSync } from 'node:fs';
import { parse as parseYAML } from 'yaml';

const METRIC_NAME = '[a-zA-Z_:][a-zA-Z0-9_:]*';
const LABEL_NAME = '[a-zA-Z_][a-zA-Z0-9_]*';
const KEY = new RegExp(`^${METRIC_NAME},${LABEL_NAME}$`);

/** metric → label → allowed values. */
export type AllowList = Map<string, Map<string, Set<string>>>;

/** A Go map[string]string as %#v prints it: keys sorted. */
function goMap(m: Record<string, string>): string {
  return `map[string]string{${Object.keys(m).sort().map((k) => `${JSON.stringify(k)}:${JSON.stringify(m[k])}`).join(', ')}}`;
}

function keyError(field: string, m: Record<string, string>): string | undefined {
  if (Object.keys(m).every((k) => KEY.test(k))) return undefined;
  return `${field}: Invalid value: ${goMap(m)}: must have keys with format \`metricName,labelName\` where metricName matches ${JSON.stringify(METRIC_NAME)} and labelName matches ${JSON.stringify(LABEL_NAME)}`;
}

/** The upstream error for --allow-metric-labels keys that are not `metric,label`, or undefined. */
export function validateAllowListMapping(m: Record<string, string>): string | undefined {
  return keyError('metrics.allowListMapping', m);
}

/** Reads and checks an --allow-metric-labels-manifest file (YAML `"metric,label": "v1,v2"`); throws upstream's text. */
export function readAllowListManifest(path: string): Record<string, string> {
  const field = 'metrics.allowListMappingManifest';
  const invalid = (why: string) => new Error(`${field}: Invalid value: ${JSON.stringify(path)}: ${why}`);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file or directory' : code === 'EACCES' ? 'permission denied' : code === 'EISDIR' ? 'is a directory' : (e as Error).message;
    throw invalid(`failed to read allow list manifest: open ${path}: ${why}`);
  }
  let doc: unknown;
  try {
    doc = parseYAML(text);
  } catch (e) {
    throw invalid(`failed to parse allow list manifest: ${(e as Error).message.split('\n')[0]}`);
  }
  if (doc === null || doc === undefined) return {};
  if (typeof doc !== 'object' || Array.isArray(doc) || Object.values(doc).some((v) => typeof v !== 'string')) {
    throw invalid('failed to parse allow list manifest: the manifest must map "metricName,labelName" keys to "value1,value2" strings');
  }
  const m = doc as Record<string, string>;
  const bad = keyError(field, m);
  if (bad) throw invalid(`invalid allow list mapping in manifest: [${bad}]`);
  return m;
}

/** The mapping as the registry takes it (values split at commas, as upstream splits them: no trimming). */
export function toAllowList(m: Record<string, string>): AllowList {
  const out: AllowList = new Map();
  for (const [k, v] of Object.entries(m)) {
    const [metric, label] = k.split(',') as [string, string];
    let labels = out.get(metric);
    if (!labels) out.set(metric, (labels = new Map()));
    labels.set(label, new Set(v.split(',')));
  }
  return out;
}

/**
 * pflag's stringToString: one `=` takes the whole text as a single pair (so `m,l=a,b` keeps its commas); with more,
 * the text is a CSV record of pairs. A repeated flag adds to the map.
 */
export function parseStringToString(text: string, current: Record<string, string>): Record<string, string> {
  const n = (text.match(/=/g) ?? []).length;
  if (n === 0) throw new Error(`${text} must be formatted as key=value`);
  const pairs = n === 1 ? [text.replace(/^"+|"+$/g, '')] : csvRecord(text);
  const out = { ...current };
  for (const p of pairs) {
    const i = p.indexOf('=');
    if (i < 0) throw new Error(`${p} must be formatted as key=value`);
    out[p.slice(0, i)] = p.slice(i + 1);
  }
  return out;
}

/** pflag's String() of a stringToString: `[k=v,...]` as one CSV record (keys sorted here; Go's map order is random). */
export function formatStringToString(m: Record<string, string>): string {
  const fields = Object.keys(m).sort().map((k) => `${k}=${m[k]}`);
  return `[${fields.map((f) => (/[",\n\r]/.test(f) || f.startsWith(' ') ? `"${f.replace(/"/g, '""')}"` : f)).join(',')}]`;
}

/** One record of Go's encoding/csv (double quotes, `""` inside quotes). */
function csvRecord(text: string): string[] {
  const out: string[] = [];
  let i = 0;
  for (;;) {
    let field = '';
    if (text[i] === '"') {
      i++;
      for (;;) {
        const q = text.indexOf('"', i);
        if (q < 0) throw new Error(`parse error on line 1, column ${text.length + 1}: extraneous or missing " in quoted-field`);
        field += text.slice(i, q);
        if (text[q + 1] === '"') {
          field += '"';
          i = q + 2;
          continue;
        }
        i = q + 1;
        break;
      }
      if (i < text.length && text[i] !== ',') throw new Error(`parse error on line 1, column ${i + 1}: extraneous or missing " in quoted-field`);
    } else {
      const c = text.indexOf(',', i);
      field = c < 0 ? text.slice(i) : text.slice(i, c);
      i = c < 0 ? text.length : c;
    }
    out.push(field);
    if (i >= text.length) return out;
    i++; // the comma
  }
}
