import type { Definitions } from '../../apimachinery/schema.ts';
import type { APIResourceInfo } from '../../registry/rest/resource-info.ts';
import { type ResourceDefinition, resourceInfoOf } from '../../registry/generic/registration.ts';
import type { KubeObject } from '../../apis/meta/v1/types.ts';
import { type ResourceScope, resourceInfo } from '../../registry/rest/scope.ts';

/** One served resource as OpenAPI sees it: its discovery facts and the schema definitions behind it. */
export interface OpenAPIResource {
  info: APIResourceInfo;
  /** Definition name of the object, e.g. `io.cluster.api.events.v1.Event`. */
  definition: string;
  /** Definition name of the list, e.g. `io.cluster.api.events.v1.EventList`. */
  listDefinition: string;
  /** Every definition the two above reach (meta/v1 included). */
  definitions: Definitions;
}

/** What OpenAPI publishes of a registered resource. */
export function openAPIResource(scope: ResourceScope): OpenAPIResource {
  return { info: resourceInfo(scope), definition: scope.definition, listDefinition: scope.listDefinition, definitions: scope.defs };
}

/** The same for a resource's definition alone (no storage behind it: documents in tests). */
export function openAPIResourceOf<T extends KubeObject>(def: ResourceDefinition<T>): OpenAPIResource {
  return { info: resourceInfoOf(def), definition: def.definition, listDefinition: def.listDefinition, definitions: def.defs };
}
