/**
 * What a resource decides about its own objects (upstream `registry/rest` RESTCreateStrategy,
 * RESTUpdateStrategy and their small interfaces). The generic store does everything else: system metadata,
 * preconditions, storage and the order of the steps.
 */
import type { AdmissionUser } from '../../admission/interfaces.ts';
import type { KubeObject } from '../../apis/meta/v1/types.ts';
import type { FieldError } from '../../apimachinery/field.ts';

export interface Strategy<T extends KubeObject> {
  /** Objects live in namespaces (`/namespaces/{ns}/…`) or at the cluster level. */
  readonly namespaceScoped: boolean;
  /** Fills defaults into a decoded request object (upstream's scheme defaulters), before anything else sees it. */
  defaults?(obj: T): void;
  /**
   * Clears what a client may not set on create (status and the like); system metadata is the store's. `user` is the
   * requester where the write comes from a request (a CertificateSigningRequest records it).
   */
  prepareForCreate(obj: T, user?: AdmissionUser): void;
  validate(obj: T): FieldError[];
  /** Warnings to send back with a valid create (`Warning: 299 - "…"`). */
  warningsOnCreate?(obj: T): string[];
  /** Normalizes a valid object before it is stored (e.g. sorted lists). */
  canonicalize?(obj: T): void;
  /** PUT (or apply) of a missing object creates it. */
  readonly allowCreateOnUpdate: boolean;
  prepareForUpdate(obj: T, old: T): void;
  validateUpdate(obj: T, old: T): FieldError[];
  warningsOnUpdate?(obj: T, old: T): string[];
  /** An update that carries no resourceVersion is applied to whatever is stored (no optimistic lock). */
  readonly allowUnconditionalUpdate: boolean;
}

/** Checks run after the strategy's validation (admission's validating plugins), as upstream's ValidateObjectFunc. */
export type ValidateObjectFunc<T extends KubeObject> = (obj: T) => void | Promise<void>;
export type ValidateObjectUpdateFunc<T extends KubeObject> = (obj: T, old: T) => void | Promise<void>;
