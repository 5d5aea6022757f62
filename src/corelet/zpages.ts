/**
 * The corelet's `/statusz` and `/flagz` (kubelet installs both, behind ComponentStatusz and ComponentFlagz): the same
 * pages and content negotiation as the API server's (util/zpages), with the corelet's facts and flags. A gate that
 * is off leaves its page out (404).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { newNotAcceptable } from '../apimachinery/errors.ts';
import { toYAML } from '../apimachinery/codec/encode.ts';
import { featureGates } from '../features.ts';
import { EMULATION_VERSION, MIN_COMPATIBILITY_VERSION, binaryVersion, majorMinor, versionInfo } from '../version.ts';
import { type FlagValue, flagz, flagzText } from '../util/zpages/flagz.ts';
import { negotiateZpage, ZPAGE_MEDIA_TYPES, type ZpageOutput } from '../util/zpages/negotiate.ts';
import { statusz, statuszText } from '../util/zpages/statusz.ts';
import { randomDelimiter } from '../util/zpages/text.ts';
import { type RouteHandler, sendText } from './routes.ts';

export const COMPONENT = 'corelet';

export interface CoreletZpagesOptions {
  startTime: Date;
  /** Every flag with its effective value (from the command line's FlagSet). */
  flags: () => FlagValue[];
  /** The other served paths. */
  paths: () => string[];
}

function write(res: ServerResponse, out: ZpageOutput, text: () => string, value: object): void {
  if (out.format === 'text') return sendText(res, 200, text());
  const body = out.mediaType === 'application/yaml' ? toYAML(value) : out.pretty ? JSON.stringify(value, null, 2) + '\n' : JSON.stringify(value);
  sendText(res, 200, body, out.mediaType);
}

function negotiated(req: IncomingMessage, res: ServerResponse, kind: 'Statusz' | 'Flagz'): ZpageOutput | undefined {
  const out = negotiateZpage(req.headers.accept, kind);
  if (!out) sendText(res, 406, JSON.stringify(newNotAcceptable([...ZPAGE_MEDIA_TYPES]).toStatus()), 'application/json');
  return out;
}

/** The pages the gates allow, by path. */
export function coreletZpages(o: CoreletZpagesOptions): Map<string, RouteHandler> {
  const pages = new Map<string, RouteHandler>();
  if (featureGates.enabled('ComponentStatusz')) {
    pages.set('/statusz', (req, res) => {
      const out = negotiated(req, res, 'Statusz');
      if (!out) return;
      const s = statusz(
        {
          component: COMPONENT,
          startTime: o.startTime,
          goVersion: versionInfo.goVersion,
          binaryVersion: binaryVersion(),
          emulationVersion: majorMinor(EMULATION_VERSION),
          minimumCompatibilityVersion: majorMinor(MIN_COMPATIBILITY_VERSION),
          paths: o.paths,
        },
        new Date(),
      );
      write(res, out, () => statuszText(s, randomDelimiter()), s);
    });
  }
  if (featureGates.enabled('ComponentFlagz')) {
    pages.set('/flagz', (req, res) => {
      const out = negotiated(req, res, 'Flagz');
      if (!out) return;
      const f = flagz(COMPONENT, o.flags());
      write(res, out, () => flagzText(f, randomDelimiter()), f);
    });
  }
  return pages;
}
