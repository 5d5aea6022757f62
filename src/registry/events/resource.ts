/** The events.cluster.io/v1 Event resource as discovery and OpenAPI describe it (one source for both). */
import { EVENT, EVENT_LIST } from '../../apis/events/v1/schema.ts';
import { GROUP, KIND, RESOURCE, SHORT_NAMES, SINGULAR, VERBS, VERSION } from '../../apis/events/v1/types.ts';
import { EVENTS_DEFS } from '../../apimachinery/codec/definitions.ts';
import type { OpenAPIResource } from '../../server/openapi/types.ts';

export const EVENTS_OPENAPI: OpenAPIResource = {
  info: {
    group: GROUP,
    version: VERSION,
    resource: RESOURCE,
    singular: SINGULAR,
    kind: KIND,
    namespaced: true,
    verbs: VERBS,
    shortNames: SHORT_NAMES,
  },
  definition: EVENT,
  listDefinition: EVENT_LIST,
  definitions: EVENTS_DEFS,
};
