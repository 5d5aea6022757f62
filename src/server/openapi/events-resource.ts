/** The events.cluster.io/v1 Event resource as discovery and OpenAPI describe it. */
import { defineAll } from '../../apimachinery/schema.ts';
import { EVENT, EVENT_LIST, eventDefinitions } from '../../apis/events/v1/schema.ts';
import { GROUP, KIND, RESOURCE, SHORT_NAMES, SINGULAR, VERSION } from '../../apis/events/v1/types.ts';
import { metaDefinitions } from '../../apis/meta/v1/schema.ts';
import type { OpenAPIResource } from './types.ts';

export const EVENTS_RESOURCE: OpenAPIResource = {
  info: {
    group: GROUP,
    version: VERSION,
    resource: RESOURCE,
    singular: SINGULAR,
    kind: KIND,
    namespaced: true,
    verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
    shortNames: SHORT_NAMES,
  },
  definition: EVENT,
  listDefinition: EVENT_LIST,
  definitions: defineAll([...metaDefinitions, ...eventDefinitions]),
};
