/**
 * The debugging pages of a component: /statusz and /flagz behind their feature gates (not installed, so 404, when
 * the gate is off, as upstream installs them), and /configz with the effective configuration as JSON. None is
 * public: like every non-resource path outside the public ones they need a user allowed to `get` the path.
 */
import { newMethodNotAllowed, newNotAcceptable } from '../../apimachinery/errors.ts';
import { featureGates } from '../../features.ts';
import type { PathHandler } from '../api-handler.ts';
import type { Request, Response } from '../http-types.ts';
import { writeText, writeValue } from '../responsewriters.ts';
import { type FlagValue, flagz, flagzText } from '../../util/zpages/flagz.ts';
import { negotiateZpage, ZPAGE_MEDIA_TYPES, type ZpageOutput } from '../../util/zpages/negotiate.ts';
import { type StatuszSource, statusz, statuszText } from '../../util/zpages/statusz.ts';
import { randomDelimiter } from '../../util/zpages/text.ts';

export interface ZpagesConfig {
  /** The facts /statusz reports; `paths` are the other served paths (these pages add their own). */
  statusz: StatuszSource;
  /** Every flag with its effective value. */
  flags: () => FlagValue[];
  /** The effective configuration, keyed by its name as upstream's configz keys each registered config. */
  configz: () => Record<string, unknown>;
  now?: () => Date;
  random?: () => number;
}

function negotiated(accept: string | undefined, kind: 'Statusz' | 'Flagz'): ZpageOutput {
  const out = negotiateZpage(accept, kind);
  if (!out) throw newNotAcceptable([...ZPAGE_MEDIA_TYPES]);
  return out;
}

/** The handlers and the root paths they serve (for the Paths of /statusz). */
export function installZpages(cfg: ZpagesConfig): { pathHandlers: PathHandler[]; paths: string[] } {
  const now = cfg.now ?? (() => new Date());
  const delimiter = () => randomDelimiter(cfg.random);
  // The pages list themselves among the paths of /statusz.
  const source: StatuszSource = { ...cfg.statusz, paths: () => [...cfg.statusz.paths(), ...pages.keys()] };
  const pages = new Map<string, (req: Request, res: Response) => void>();
  pages.set('/configz', (_req, res) => writeValue(res, 200, cfg.configz()));
  if (featureGates.enabled('ComponentStatusz')) {
    pages.set('/statusz', (req, res) => {
      const out = negotiated(req.headers.accept, 'Statusz');
      const s = statusz(source, now());
      if (out.format === 'text') writeText(res, 200, statuszText(s, delimiter()));
      else writeValue(res, 200, s, { mediaType: out.mediaType, pretty: out.pretty });
    });
  }
  if (featureGates.enabled('ComponentFlagz')) {
    pages.set('/flagz', (req, res) => {
      const out = negotiated(req.headers.accept, 'Flagz');
      const f = flagz(cfg.statusz.component, cfg.flags());
      if (out.format === 'text') writeText(res, 200, flagzText(f, delimiter()));
      else writeValue(res, 200, f, { mediaType: out.mediaType, pretty: out.pretty });
    });
  }
  const handler: PathHandler = (req, res, pathname) => {
    const page = pages.get(pathname);
    if (!page) return false;
    if (req.method !== 'GET') throw newMethodNotAllowed();
    page(req, res);
    return true;
  };
  return { pathHandlers: [handler], paths: [...pages.keys()].sort() };
}
