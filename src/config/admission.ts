/**
 * AdmissionConfiguration (`--admission-control-config-file`, k8s.io/apiserver `pkg/admission/config.go`): a
 * configuration per named admission plugin, inline (`configuration`, which wins) or in a file (`path`, relative
 * paths taken from the configuration file's directory). Decoded strictly, as upstream since 1.30; the texts of
 * every refusal are upstream's.
 *
 * Accepted: the spec's `apiserver.config.cluster.io/v1`, and what upstream's admission scheme registers, so that a
 * kube-apiserver file loads unchanged: `apiserver.config.k8s.io/v1` and the legacy `apiserver.k8s.io/v1alpha1`
 * (with its `apiserver.cluster.io/v1alpha1` renaming). Upstream registers no AdmissionConfiguration under
 * `apiserver.config.k8s.io/v1alpha1`, so neither does this server.
 */
import { readFileSync } from 'node:fs';
import { isAbsolute, posix } from 'node:path';
import { type ConfigScheme, goJSON, readConfigDocument } from '../apimachinery/codec/config-document.ts';
import { type FieldError, notSupported, required } from '../apimachinery/field.ts';
import { goQuote } from '../util/goquote.ts';
import { STRING, decodeStrict, listOf, type StructSchema } from './strict-decode.ts';

export const KIND = 'AdmissionConfiguration';
export const API_VERSIONS = ['apiserver.config.cluster.io/v1', 'apiserver.config.k8s.io/v1', 'apiserver.k8s.io/v1alpha1', 'apiserver.cluster.io/v1alpha1'];

const SCHEME: ConfigScheme = {
  // Upstream's admission config scheme is created at line 51 of `pkg/server/options/admission.go`.
  name: 'pkg/server/options/admission.go:51',
  registered: (apiVersion, kind) => kind === KIND && API_VERSIONS.includes(apiVersion),
};

export interface AdmissionPluginConfiguration {
  name: string;
  /** Absolute once read (relative paths resolved against the file's directory); '' when not given. */
  path: string;
  /** The inline configuration as decoded (any JSON value); undefined when absent or null. */
  configuration?: unknown;
}

export interface AdmissionConfiguration {
  plugins: AdmissionPluginConfiguration[];
}

// `configuration` is a runtime.Unknown: any JSON value, kept raw and never looked into by the strict decoder.
const SCHEMA: StructSchema = {
  kind: 'struct',
  goName: 'AdmissionConfiguration',
  fields: { plugins: listOf({ kind: 'struct', goName: 'AdmissionPluginConfiguration', fields: { name: STRING, path: STRING } }) },
};

/** Go's makeAbs against `path.Dir(configFile)`: absolute paths stay, a base of `.` means the working directory. */
function makeAbs(p: string, base: string): string {
  if (isAbsolute(p)) return p;
  return posix.join(base === '' || base === '.' ? process.cwd() : base, p);
}

/**
 * Reads and decodes the file (upstream ReadAdmissionConfiguration), or throws Error with its text:
 * `unable to read admission control configuration from "<f>" [open <f>: no such file or directory]`, or the
 * decoder's (`no kind …`, `strict decoding error: unknown field "plugins[0].foo"`, `json: cannot unmarshal …`).
 */
export function readAdmissionConfiguration(file: string): AdmissionConfiguration {
  if (file === '') return { plugins: [] };
  let data: string;
  try {
    data = readFileSync(file, 'utf8');
  } catch (e) {
    throw new Error(`unable to read admission control configuration from ${goQuote(file)} [${goPathError(e as NodeJS.ErrnoException, file)}]`);
  }
  const doc = readConfigDocument(data, SCHEME);
  // Take the runtime.Unknown fields out before the strict decode, and put them back by position.
  const rawPlugins = doc.value.plugins;
  const inline: unknown[] = [];
  const stripped = Array.isArray(rawPlugins)
    ? rawPlugins.map((p, i) => {
        if (p === null || typeof p !== 'object' || Array.isArray(p)) return p;
        const { configuration, ...rest } = p as Record<string, unknown>;
        inline[i] = configuration;
        return rest;
      })
    : rawPlugins;
  const strict = doc.duplicates.length ? [`error converting YAML to JSON: yaml: unmarshal errors:\n  ${doc.duplicates.join('\n  ')}`] : [];
  const decoded = decodeStrict({ ...doc.value, plugins: stripped }, SCHEMA, strict, ['apiVersion', 'kind']) as { plugins?: (Partial<AdmissionPluginConfiguration> | undefined)[] };
  const base = posix.dirname(file);
  return {
    plugins: (decoded.plugins ?? []).map((p, i) => ({
      name: p?.name ?? '',
      path: p?.path ? makeAbs(p.path, base) : '',
      ...(inline[i] !== undefined && inline[i] !== null ? { configuration: inline[i] } : {}),
    })),
  };
}

/**
 * Every entry names a registered plugin. Upstream passes over entries for plugins it does not have; the spec says a
 * name must match a registered plugin, and a misspelt name would otherwise leave a limit silently unapplied.
 */
export function validatePluginNames(c: AdmissionConfiguration, registered: readonly string[]): FieldError[] {
  const errs: FieldError[] = [];
  c.plugins.forEach((p, i) => {
    if (p.name === '') errs.push(required(`plugins[${i}].name`));
    else if (!registered.includes(p.name)) errs.push(notSupported(`plugins[${i}].name`, p.name, [...registered]));
  });
  return errs;
}

/**
 * The configuration text a plugin is built from (upstream ConfigFor): the first entry of that name — its inline
 * configuration as JSON, else its file's content — or undefined when there is none. An unreadable file stops the
 * start with the text upstream's klog.Fatalf prints (Go's %#v of the *fs.PathError).
 */
export function pluginConfiguration(c: AdmissionConfiguration, name: string): string | undefined {
  const entry = c.plugins.find((p) => p.name === name);
  if (!entry) return undefined;
  if (entry.configuration !== undefined) return goJSON(entry.configuration);
  if (entry.path === '') return undefined;
  try {
    return readFileSync(entry.path, 'utf8');
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    const errno = -(err.errno ?? 0);
    const op = err.syscall === 'read' ? 'read' : 'open';
    throw new Error(`Couldn't open admission plugin configuration ${entry.path}: &fs.PathError{Op:"${op}", Path:${goQuote(entry.path)}, Err:0x${errno.toString(16)}}`);
  }
}

/** Go's *fs.PathError text (`open <path>: no such file or directory`) for a failed read of `path`. */
function goPathError(err: NodeJS.ErrnoException, path: string): string {
  const op = err.syscall === 'read' ? 'read' : 'open';
  const reasons: Record<string, string> = {
    ENOENT: 'no such file or directory',
    EACCES: 'permission denied',
    EISDIR: 'is a directory',
    ENOTDIR: 'not a directory',
    ELOOP: 'too many levels of symbolic links',
  };
  return `${op} ${path}: ${reasons[err.code ?? ''] ?? err.message}`;
}
