/** The Definitions map of events.cluster.io/v1 (meta + Event), built once: codec, patches, apply and OpenAPI use it. */
import { defineAll, type Definitions } from '../../../apimachinery/schema.ts';
import { metaDefinitions } from '../../meta/v1/schema.ts';
import { eventDefinitions } from './schema.ts';

export const EVENTS_DEFS: Definitions = defineAll([...metaDefinitions, ...eventDefinitions]);
