/** The one shared Definitions map for the served API (meta + events.cluster.io/v1), built once. */
import { defineAll, type Definitions } from '../schema.ts';
import { metaDefinitions } from '../../apis/meta/v1/schema.ts';
import { eventDefinitions } from '../../apis/events/v1/schema.ts';

export const EVENTS_DEFS: Definitions = defineAll([...metaDefinitions, ...eventDefinitions]);
