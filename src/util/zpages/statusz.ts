/**
 * /statusz (upstream `pkg/server/statusz`): when the process started, how long it has run, its toolchain and
 * versions, and the other debugging paths it serves; as text for people or as a `Statusz` object.
 */
import { ZPAGES_API_VERSION } from './negotiate.ts';
import { textHeader } from './text.ts';

/** The facts of a process that /statusz reports. */
export interface StatuszSource {
  component: string;
  startTime: Date;
  /** Upstream reports Go's runtime.Version(); we report the Node.js runtime (`node20.x.y`) in the same field. */
  goVersion: string;
  binaryVersion: string;
  /** `<major>.<minor>`; '' when unknown. */
  emulationVersion: string;
  minimumCompatibilityVersion: string;
  /** The served root paths, `/healthz` and the like. */
  paths: () => string[];
}

/** The `config.cluster.io/v1beta1` Statusz object, with `minimumCompatibilityVersion` as spec document 2 lists it. */
export interface Statusz {
  kind: 'Statusz';
  apiVersion: string;
  metadata: { name: string };
  startTime: string;
  uptimeSeconds: number;
  goVersion: string;
  binaryVersion: string;
  emulationVersion?: string;
  minimumCompatibilityVersion?: string;
  paths: string[];
}

/** Upstream lists paths by their first segment and leaves out the API and discovery trees. */
const UNLISTED = new Set(['/api', '/apis', '/openapi', '/openid', '/.well-known']);

export function listedPaths(paths: readonly string[]): string[] {
  const firsts = paths.map((p) => '/' + (p.split('/').find((s) => s !== '') ?? ''));
  return [...new Set(firsts)].filter((p) => p !== '/' && !UNLISTED.has(p)).sort();
}

export function statusz(src: StatuszSource, now: Date): Statusz {
  return {
    kind: 'Statusz',
    apiVersion: ZPAGES_API_VERSION,
    metadata: { name: src.component },
    // metav1.Time: RFC 3339 in seconds.
    startTime: src.startTime.toISOString().replace(/\.\d+Z$/, 'Z'),
    uptimeSeconds: uptimeSeconds(src.startTime, now),
    goVersion: src.goVersion,
    binaryVersion: src.binaryVersion,
    ...(src.emulationVersion ? { emulationVersion: src.emulationVersion } : {}),
    ...(src.minimumCompatibilityVersion ? { minimumCompatibilityVersion: src.minimumCompatibilityVersion } : {}),
    paths: listedPaths(src.paths()),
  };
}

/** The text form: the lines spec document 2 lists, each `<label><delimiter> <value>`. */
export function statuszText(s: Statusz, delimiter: string): string {
  const line = (label: string, value: string) => `${label}${delimiter} ${value}\n`;
  return (
    textHeader(s.metadata.name, 'statusz') +
    line('Started', goUnixDate(new Date(s.startTime))) +
    line('Up', formatUptime(s.uptimeSeconds)) +
    line('Go version', s.goVersion) +
    line('Binary version', s.binaryVersion) +
    // Upstream writes an empty line when the emulation version is unknown.
    (s.emulationVersion ? line('Emulation version', s.emulationVersion) : '\n') +
    line('Paths', s.paths.join(' '))
  );
}

function uptimeSeconds(start: Date, now: Date): number {
  return Math.max(0, Math.floor((now.getTime() - start.getTime()) / 1000));
}

/** Upstream's `%d hr %02d min %02d sec`. */
export function formatUptime(seconds: number): string {
  const two = (n: number) => String(n).padStart(2, '0');
  return `${Math.floor(seconds / 3600)} hr ${two(Math.floor((seconds % 3600) / 60))} min ${two(seconds % 60)} sec`;
}

const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** Go's time.UnixDate layout `Mon Jan _2 15:04:05 MST 2006`, in UTC (the day of month is space-padded). */
export function goUnixDate(d: Date): string {
  const two = (n: number) => String(n).padStart(2, '0');
  const time = `${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())}`;
  return `${DAYS[d.getUTCDay()]} ${MONTHS[d.getUTCMonth()]} ${String(d.getUTCDate()).padStart(2, ' ')} ${time} UTC ${d.getUTCFullYear()}`;
}
