/** Types shared by the watch cache and its users (the generic registry store and the watch server). */

/** What selectors look at, extracted once per stored version (never by re-parsing JSON per list). */
export interface ObjectAttrs {
  namespace: string;
  name: string;
  labels: Readonly<Record<string, string>> | undefined;
  /** Selectable fields (field selector labels → values). */
  fields: Readonly<Record<string, string>>;
  uid: string;
}

/** One cached object version. `value` is the serialized object, sent to clients as is. */
export interface CacheEntry {
  readonly key: string;
  readonly rv: number;
  readonly value: Buffer;
  readonly attrs: ObjectAttrs;
  readonly expiresAt?: number;
}

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED';

/** A change as the cache saw it. Frames are built lazily and shared by every watcher. */
export class CacheEvent {
  #frames: Partial<Record<WatchEventType, Buffer>> = {};

  constructor(
    readonly type: WatchEventType,
    readonly rv: number,
    readonly entry: CacheEntry,
    readonly prev: CacheEntry | undefined,
  ) {}

  /** `{"type":"<type>","object":<value>}\n`, built once per type for all watchers. */
  frame(type: WatchEventType): Buffer {
    let f = this.#frames[type];
    if (!f) {
      f = watchFrame(type, this.entry.value);
      this.#frames[type] = f;
    }
    return f;
  }
}

const FRAME_HEAD: Record<string, Buffer> = {};
const FRAME_TAIL = Buffer.from('}\n');

/** The JSON watch frame for `value`; the object bytes are reused, never re-serialized. */
export function watchFrame(type: string, value: Buffer): Buffer {
  let head = FRAME_HEAD[type];
  if (!head) {
    head = Buffer.from(`{"type":"${type}","object":`);
    FRAME_HEAD[type] = head;
  }
  return Buffer.concat([head, value, FRAME_TAIL], head.length + value.length + FRAME_TAIL.length);
}

/** A filter over attrs: namespace/name scope plus label and field selectors. */
export interface Predicate {
  matches(attrs: ObjectAttrs): boolean;
  /** True when the predicate matches everything (no filtering cost). */
  readonly everything: boolean;
  /** Field values every match must have (from `=`/`==` field selector terms): lets the cache use an index. */
  readonly exact?: readonly { field: string; value: string }[];
}

export const EVERYTHING: Predicate = { matches: () => true, everything: true };
