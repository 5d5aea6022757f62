/**
 * /flagz (upstream `pkg/server/flagz`): every command-line flag with the value the process runs with; a flag
 * marked classified shows `CLASSIFIED` instead of its value, in both forms.
 */
import { ZPAGES_API_VERSION } from './negotiate.ts';
import { textHeader } from './text.ts';

/** One flag as /flagz needs it; `value` is the flag's printed value (pflag's Value.String()). */
export interface FlagValue {
  name: string;
  value: string;
  classified: boolean;
}

export interface Flagz {
  kind: 'Flagz';
  apiVersion: string;
  metadata: { name: string };
  flags: Record<string, string>;
}

export const CLASSIFIED = 'CLASSIFIED';

export function flagz(component: string, flags: readonly FlagValue[]): Flagz {
  const sorted = [...flags].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return {
    kind: 'Flagz',
    apiVersion: ZPAGES_API_VERSION,
    metadata: { name: component },
    flags: Object.fromEntries(sorted.map((f) => [f.name, f.classified ? CLASSIFIED : f.value])),
  };
}

/** The text form: `<flag><delimiter> <value>` per flag, sorted by name. */
export function flagzText(f: Flagz, delimiter: string): string {
  return textHeader(f.metadata.name, 'flagz') + Object.entries(f.flags).map(([name, value]) => `${name}${delimiter} ${value}\n`).join('');
}
