/** A minimal Codec for storage tests: plain JSON, no defaulting or conversion (the real codec lives in the registry). */
import type { Codec } from '../interface.ts';
import type { KubeObject } from '../../apis/meta/v1/types.ts';
import { spliceResourceVersion } from '../../apimachinery/codec/resource-version-splice.ts';

export const jsonCodec: Codec = {
  encode(obj: KubeObject): Buffer {
    return Buffer.from(JSON.stringify(obj));
  },
  decode(value: Buffer): KubeObject {
    return JSON.parse(value.toString('utf8')) as KubeObject;
  },
  setResourceVersion: spliceResourceVersion,
};
