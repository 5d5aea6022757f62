/**
 * The Event strategy (kubernetes `pkg/registry/core/event/strategy.go`): namespaced, no defaulting, no status;
 * PUT of a missing Event creates it and an update may leave out the resourceVersion, as upstream allows.
 */
import type { Event } from '../../apis/events/v1/types.ts';
import type { Strategy } from '../rest/strategy.ts';
import { type EventValidationMode, validateEventCreate, validateEventUpdate } from './validation.ts';

export function eventStrategyFor(mode: EventValidationMode): Strategy<Event> {
  return {
    namespaceScoped: true,
    prepareForCreate(): void {},
    validate: (obj) => validateEventCreate(obj, mode),
    allowCreateOnUpdate: true,
    prepareForUpdate(): void {},
    validateUpdate: (obj, old) => validateEventUpdate(obj, old, mode),
    allowUnconditionalUpdate: true,
  };
}

export const eventStrategy = eventStrategyFor('events');
