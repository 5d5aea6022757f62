/** The codec of the RBAC kinds: stored bytes are canonical JSON in Go field order, as the Event codec's. */
import type { KubeObject } from '../../apis/meta/v1/types.ts';
import { RBAC_DEFS } from '../../apis/rbac/v1/schema.ts';
import { encode } from '../../apimachinery/codec/encode.ts';
import { spliceResourceVersion } from '../../apimachinery/codec/resource-version-splice.ts';
import type { Codec } from '../../storage/interface.ts';

export function rbacCodec<T extends KubeObject>(definition: string): Codec & { decode(value: Buffer): T } {
  return {
    encode: (obj: KubeObject) => encode(obj, RBAC_DEFS, definition),
    decode: (value: Buffer) => JSON.parse(value.toString('utf8')) as T,
    setResourceVersion: spliceResourceVersion,
  };
}
