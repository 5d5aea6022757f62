/** The Event strategy (kubernetes `pkg/registry/core/event/strategy.go`): no defaulting, no status, validation only. */
import type { Event } from '../../apis/events/v1/types.ts';
import type { KubeObject } from '../../apis/meta/v1/types.ts';
import type { Strategy } from '../generic/store.ts';
import { validateEventCreate, validateEventUpdate } from './validation.ts';

export const eventStrategy: Strategy = {
  prepareForCreate(): void {},
  validate: (obj: KubeObject) => validateEventCreate(obj as unknown as Event),
  prepareForUpdate(): void {},
  validateUpdate: (obj: KubeObject, old: KubeObject) => validateEventUpdate(obj as unknown as Event, old as unknown as Event),
};
