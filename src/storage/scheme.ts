/**
 * One storage serves many resources, and a Codec encodes one kind: the Scheme picks the codec of an object by its
 * apiVersion and kind (upstream's runtime.Scheme, reduced to what storage needs). Stored values are JSON, so
 * decoding needs no lookup.
 */
import type { KubeObject } from '../apis/meta/v1/types.ts';
import { spliceResourceVersion } from '../apimachinery/codec/resource-version-splice.ts';
import type { Codec } from './interface.ts';

export class Scheme implements Codec {
  readonly #codecs = new Map<string, Codec>();

  /**
   * Objects of `apiVersion` and `kind` are encoded by `codec` (a second registration must be the same codec). The
   * codec must place the resourceVersion as the shared splice does: stored bytes carry no kind to dispatch on.
   */
  register(apiVersion: string, kind: string, codec: Codec): void {
    if (codec.setResourceVersion !== spliceResourceVersion) throw new Error(`the codec of ${apiVersion}, Kind=${kind} must set resourceVersions with spliceResourceVersion`);
    const key = `${apiVersion}\0${kind}`;
    const had = this.#codecs.get(key);
    if (had && had !== codec) throw new Error(`a different codec is already registered for ${apiVersion}, Kind=${kind}`);
    this.#codecs.set(key, codec);
  }

  encode(obj: KubeObject): Buffer {
    const codec = this.#codecs.get(`${obj.apiVersion ?? ''}\0${obj.kind ?? ''}`);
    if (!codec) throw new Error(`no kind "${obj.kind ?? ''}" is registered for version "${obj.apiVersion ?? ''}"`);
    return codec.encode(obj);
  }

  decode(value: Buffer): KubeObject {
    return JSON.parse(value.toString('utf8')) as KubeObject;
  }

  setResourceVersion(value: Buffer, rv: number): Buffer {
    return spliceResourceVersion(value, rv);
  }
}
