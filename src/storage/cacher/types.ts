/** Types shared by the watch cache and its users (the generic registry store and the watch server). */

/**
 * What selectors look at, extracted once per stored version (never by re-parsing JSON per list). Resources keep
 * these in compact per-resource classes (one object per cached version), so fields are read through `field`.
 */
export interface ObjectAttrs {
  readonly namespace: string;
  readonly name: string;
  readonly labels: Readonly<Record<string, string>> | undefined;
  readonly uid: string;
  /** The value of a selectable field by its field-selector label; '' when unset or not a field of the resource. */
  field(label: string): string;
}

/** One cached object version. `value` is the serialized object, sent to clients as is. */
export interface CacheEntry {
  readonly key: string;
  readonly rv: number;
  readonly value: Buffer;
  readonly attrs: ObjectAttrs;
}

/** The cache's entries: a class with fixed slots, so a million of them share one shape and carry no extras. */
export class Entry implements CacheEntry {
  constructor(
    readonly key: string,
    readonly rv: number,
    readonly value: Buffer,
    readonly attrs: ObjectAttrs,
  ) {}
}

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED';

/** A change as the cache saw it. Frames are built lazily and shared by every watcher. */
export class CacheEvent {
  // The frame of the change's own type in a slot; the rare other types (selector transitions) in a side table.
  #frame: Buffer | undefined = undefined;
  #other: Partial<Record<WatchEventType, Buffer>> | undefined = undefined;

  constructor(
    readonly type: WatchEventType,
    readonly rv: number,
    readonly entry: CacheEntry,
    readonly prev: CacheEntry | undefined,
  ) {}

  /** `{"type":"<type>","object":<value>}\n`, built once per type for all watchers. */
  frame(type: WatchEventType): Buffer {
    // Once dropped, a frame a resume asks for is built for that resume only: cached again it would stay for good.
    if (this.#dropped) return watchFrame(type, this.entry.value);
    if (type === this.type) return (this.#frame ??= watchFrame(type, this.entry.value));
    this.#other ??= {};
    return (this.#other[type] ??= watchFrame(type, this.entry.value));
  }

  /**
   * Forgets the cached frame (the cache calls this once the change is no longer recent: frames are ~1 KB each) and
   * says whether this is the first time: from then on the change holds only its value.
   */
  dropFrame(): boolean {
    const first = !this.#dropped;
    this.#dropped = true;
    this.#frame = undefined;
    this.#other = undefined;
    return first;
  }
  #dropped = false;
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
