/** Storage value transformers (k8s.io/apiserver `pkg/storage/value`). */
export type { Context, FromStorage, MaybePromise, Transformer } from './transformer.ts';
export { KeyContext, isPromise } from './transformer.ts';
export { ENCRYPTED_PREFIX, identityTransformer } from './identity.ts';
export { PrefixTransformers, type PrefixTransformer, type TransformationRecorder } from './prefix.ts';
export { AesCbcTransformer, AesGcmTransformer } from './aes.ts';
export { SecretboxTransformer } from './secretbox.ts';
export { ResourceTransformers, keyRoot } from './by-resource.ts';
export { resourceTransformer, providerTransformer, providerPrefix, kmsPrefix, type ProviderSpec, type KeySpec, type KMSFactory } from './providers.ts';
export { TransformationMetrics, statusLabel } from './metrics.ts';
