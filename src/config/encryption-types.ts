/**
 * EncryptionConfiguration (`--encryption-provider-config`), the internal form after decoding and defaulting: which
 * resources are stored through which providers. Field names are the file's (upstream `apiserver.config.k8s.io/v1`).
 */

/** A named key of an aesgcm, aescbc or secretbox provider; `secret` is base64 of the key bytes. */
export interface Key {
  name: string;
  secret: string;
}

export interface KeysConfiguration {
  keys: Key[];
}

export interface KMSConfiguration {
  /** `v2` (default `v1` as upstream, which is refused unless the KMSv1 gate is on). */
  apiVersion: string;
  name: string;
  /** KMS v1 only (default 1000 there). */
  cachesize?: number;
  endpoint: string;
  /** Per-call timeout in milliseconds (default 3 s). */
  timeoutMs: number;
  /** As written (or the default), for error texts: Go's Duration form. */
  timeout: string;
}

/** One provider: exactly one member is set (validation refuses none and several). */
export interface ProviderConfiguration {
  aesgcm?: KeysConfiguration;
  aescbc?: KeysConfiguration;
  secretbox?: KeysConfiguration;
  identity?: Record<string, never>;
  kms?: KMSConfiguration;
}

export interface ResourceConfiguration {
  resources: string[];
  providers: ProviderConfiguration[];
}

export interface EncryptionConfiguration {
  resources: ResourceConfiguration[];
}
