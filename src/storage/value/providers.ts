/**
 * Builds a resource's transformer from the providers an EncryptionConfiguration gives it (upstream
 * `encryptionconfig.prefixTransformersAndProbes`): each provider is a prefix transformer
 * `cluster:enc:<provider>:v1:` over its keys' prefix transformers `<keyname>:`, identity has the empty prefix.
 * The shapes below are the configuration's (src/config/encryption-types.ts), restated so storage does not depend
 * on the config layer.
 */
import { AesCbcTransformer, AesGcmTransformer } from './aes.ts';
import { ENCRYPTED_PREFIX, identityTransformer } from './identity.ts';
import { PrefixTransformers, type PrefixTransformer, type TransformationRecorder } from './prefix.ts';
import { SecretboxTransformer } from './secretbox.ts';
import type { Transformer } from './transformer.ts';

export interface KeySpec {
  name: string;
  /** base64 (validated before this is called). */
  secret: string;
}

export interface ProviderSpec {
  aesgcm?: { keys: KeySpec[] };
  aescbc?: { keys: KeySpec[] };
  secretbox?: { keys: KeySpec[] };
  identity?: object;
  kms?: { name: string; endpoint: string; timeoutMs: number };
}

/** What a KMS v2 provider named `name` is, once its plugin connection exists (kmsv2/, built by the caller). */
export type KMSFactory = (spec: NonNullable<ProviderSpec['kms']>) => Transformer;

/** `cluster:enc:<provider>:v1:` (upstream `k8s:enc:…`; reference decision 1). */
export const providerPrefix = (provider: 'aesgcm' | 'aescbc' | 'secretbox') => `${ENCRYPTED_PREFIX}${provider}:v1:`;
/** KMS v2 providers are named in their prefix: `cluster:enc:kms:v2:<name>:`. */
export const kmsPrefix = (name: string) => `${ENCRYPTED_PREFIX}kms:v2:${name}:`;

function keyed(keys: KeySpec[], make: (key: Buffer) => Transformer, noMatch: string): Transformer {
  const list = keys.map((k) => ({ prefix: Buffer.from(`${k.name}:`), transformer: make(Buffer.from(k.secret, 'base64')) }));
  return new PrefixTransformers(list, noMatch);
}

/** One provider of the list, with its prefix. */
export function providerTransformer(p: ProviderSpec, kms?: KMSFactory): PrefixTransformer {
  if (p.aesgcm) {
    return { prefix: Buffer.from(providerPrefix('aesgcm')), transformer: keyed(p.aesgcm.keys, (k) => new AesGcmTransformer(k), 'no matching key was found for the provided AES transformer') };
  }
  if (p.aescbc) {
    return { prefix: Buffer.from(providerPrefix('aescbc')), transformer: keyed(p.aescbc.keys, (k) => new AesCbcTransformer(k), 'no matching key was found for the provided AES transformer') };
  }
  if (p.secretbox) {
    return {
      prefix: Buffer.from(providerPrefix('secretbox')),
      transformer: keyed(p.secretbox.keys, (k) => new SecretboxTransformer(k), 'no matching key was found for the provided Secretbox transformer'),
    };
  }
  if (p.identity) return { prefix: Buffer.alloc(0), transformer: identityTransformer };
  if (p.kms) {
    if (!kms) throw new Error(`could not configure KMSv2 plugin ${JSON.stringify(p.kms.name)}: no KMS connection`);
    return { prefix: Buffer.from(kmsPrefix(p.kms.name)), transformer: kms(p.kms) };
  }
  throw new Error('provider does not contain any of the expected providers: KMS, AESGCM, AESCBC, Secretbox, Identity');
}

/** A resource's transformer over its providers in order (upstream: `no matching prefix found` when none reads a value). */
export function resourceTransformer(providers: ProviderSpec[], recorder?: TransformationRecorder, kms?: KMSFactory): Transformer {
  return new PrefixTransformers(
    providers.map((p) => providerTransformer(p, kms)),
    'no matching prefix found',
    recorder,
  );
}
