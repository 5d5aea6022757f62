/** Storage value transformers (k8s.io/apiserver `pkg/storage/value`). */
export type { Context, FromStorage, MaybePromise, Transformer } from './transformer.ts';
export { KeyContext, isPromise } from './transformer.ts';
export { ENCRYPTED_PREFIX, identityTransformer } from './identity.ts';
