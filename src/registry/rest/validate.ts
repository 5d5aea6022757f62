/**
 * The validation half of upstream's rest.BeforeCreate and rest.BeforeUpdate: the strategy's rules and the
 * ObjectMeta rules every object obeys, in upstream's order.
 */
import type { KubeObject } from '../../apis/meta/v1/types.ts';
import type { FieldError } from '../../apimachinery/field.ts';
import { nameIsPathSegment } from '../../apimachinery/validation/content.ts';
import { validateObjectMeta, validateObjectMetaUpdate } from '../../apimachinery/validation/objectmeta.ts';
import type { Strategy } from './strategy.ts';

/** The strategy's checks; the common ObjectMeta checks only when it found nothing, so its more specific messages win. */
export function validateCreate<T extends KubeObject>(strategy: Strategy<T>, obj: T): FieldError[] {
  const errs = strategy.validate(obj);
  return errs.length ? errs : validateObjectMeta(obj.metadata, strategy.namespaceScoped, nameIsPathSegment);
}

/** The common ObjectMeta checks and update rules first, then the strategy's. */
export function validateUpdate<T extends KubeObject>(strategy: Strategy<T>, obj: T, old: T): FieldError[] {
  return [
    ...validateObjectMeta(obj.metadata, strategy.namespaceScoped, nameIsPathSegment),
    ...validateObjectMetaUpdate(obj.metadata, old.metadata),
    ...strategy.validateUpdate(obj, old),
  ];
}
