/**
 * Admission (k8s.io/apiserver `pkg/admission`): plugins that see every write after authorization. Mutating plugins
 * may change the object before it is validated and stored; validating plugins may only refuse. The REST handlers
 * call them at upstream's points (see src/registry/rest/admission.ts); which named plugins run is chosen by
 * `--enable-admission-plugins` / `--disable-admission-plugins` and configured by the AdmissionConfiguration
 * (plugins.ts, src/config/admission.ts).
 */
import type { KubeObject } from '../apis/meta/v1/types.ts';

export type Operation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';

/** The requesting user, as authentication found it (structurally the authenticator's UserInfo). */
export interface AdmissionUser {
  readonly name: string;
  readonly uid?: string;
  readonly groups: readonly string[];
  readonly extra?: Readonly<Record<string, string[]>>;
}

/** What a plugin learns about one request (upstream admission.Attributes). */
export interface Attributes {
  readonly name: string;
  /** '' for cluster-scoped objects and for cluster-wide collection deletes. */
  readonly namespace: string;
  readonly resource: { readonly group: string; readonly version: string; readonly resource: string };
  readonly subresource: string;
  readonly kind: { readonly group: string; readonly version: string; readonly kind: string };
  readonly operation: Operation;
  /** The request's options object (CreateOptions, UpdateOptions, PatchOptions or DeleteOptions), when there is one. */
  readonly operationOptions?: object;
  /** A dry-run request: a plugin with side effects must skip them. */
  readonly dryRun: boolean;
  /** The object being written (a mutating plugin may change it); null for deletes. */
  readonly object: KubeObject | null;
  /** The stored object before the change (updates and deletes); null for creates. */
  readonly oldObject: KubeObject | null;
  readonly userInfo: AdmissionUser;
}

/** Every plugin says which operations it looks at; the others pass it by. */
export interface Handler {
  handles(operation: Operation): boolean;
}

/** A plugin that may change the object (upstream MutationInterface). Throw a StatusError to refuse. */
export interface MutationInterface extends Handler {
  admit(attrs: Attributes): void | Promise<void>;
}

/** A plugin that may only refuse (upstream ValidationInterface). Throw a StatusError to refuse. */
export interface ValidationInterface extends Handler {
  validate(attrs: Attributes): void | Promise<void>;
}

export type Plugin = Partial<MutationInterface & ValidationInterface> & Handler;
