import type { Definitions } from '../../apimachinery/schema.ts';
import type { APIResourceInfo } from '../discovery/types.ts';

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
