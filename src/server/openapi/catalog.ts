/** Gathers what one OpenAPI document describes: the paths of its resources and every definition they reach. */
import type { Definitions } from '../../apimachinery/schema.ts';
import { sharedMetaDefinitions } from './meta-definitions.ts';
import { reachableDefinitions } from './schemas.ts';
import { OPERATION_DEFINITIONS, type PathSpec, apiResourcesPath, resourcePaths } from './operations.ts';
import type { OpenAPIResource } from './types.ts';

export interface Catalog {
  paths: PathSpec[];
  definitions: Definitions;
  /** Names of the definitions the document must carry, sorted. */
  names: string[];
}

/** Builds the catalog of `resources` (one or several group versions; each gets its discovery path). */
export function catalog(resources: OpenAPIResource[]): Catalog {
  const groupVersions = new Map<string, { group: string; version: string }>();
  for (const r of resources) groupVersions.set(`${r.info.group}/${r.info.version}`, { group: r.info.group, version: r.info.version });

  const definitions: Definitions = new Map();
  for (const d of sharedMetaDefinitions([...groupVersions.values()])) definitions.set(d.name, d);
  for (const r of resources) for (const [name, d] of r.definitions) if (!definitions.has(name)) definitions.set(name, d);

  const paths: PathSpec[] = [];
  for (const gv of groupVersions.values()) paths.push(apiResourcesPath(gv.group, gv.version));
  for (const r of resources) paths.push(...resourcePaths(r.info, r.definition, r.listDefinition));
  paths.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));

  const roots = [...resources.flatMap((r) => [r.definition, r.listDefinition]), ...OPERATION_DEFINITIONS];
  return { paths, definitions, names: reachableDefinitions(roots, definitions).sort() };
}
