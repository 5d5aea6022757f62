/**
 * The identity transformer: values are stored as they are. Like upstream's default (identity's
 * EncryptCheckTransformer), it refuses to read a value that an encryption provider wrote, so that a server started
 * without its encryption configuration fails those reads instead of handing out ciphertext.
 */
import type { Context, FromStorage, Transformer } from './transformer.ts';

/** What every encryption provider's output starts with (upstream: `k8s:enc:`). */
export const ENCRYPTED_PREFIX = 'cluster:enc:';
const PREFIX = Buffer.from(ENCRYPTED_PREFIX);

class IdentityTransformer implements Transformer {
  transformFromStorage(data: Buffer, _ctx: Context): FromStorage {
    // Stored objects are JSON and start with `{`: one byte decides for nearly every value.
    if (data[0] === PREFIX[0] && data.length >= PREFIX.length && data.subarray(0, PREFIX.length).equals(PREFIX)) {
      throw new Error('identity transformer tried to read encrypted data');
    }
    return { data, stale: false };
  }

  transformToStorage(data: Buffer, _ctx: Context): Buffer {
    return data;
  }
}

export const identityTransformer: Transformer = new IdentityTransformer();
