/**
 * A resource's current objects in memory, kept from a list and a watch of its watch cache (upstream's informer and
 * lister, reduced to what in-process readers need): synchronous reads for code that must not wait for storage on
 * every request (the RBAC authorizer), and a change callback for controllers. A watch that fails (history
 * compacted) relists.
 */
import type { KubeObject } from '../../apis/meta/v1/types.ts';
import type { Storage, StoredObject, Watch } from '../../storage/interface.ts';
import { log } from '../../util/log.ts';

export class Informer<T extends KubeObject> {
  readonly #storage: Storage;
  readonly #prefix: string;
  readonly #decode: (value: Buffer) => T;
  readonly #objects = new Map<string, T>();
  readonly #listeners: ((obj: T, deleted: boolean) => void)[] = [];
  #watch: Watch | undefined;
  #stopped = false;

  constructor(storage: Storage, prefix: string, decode: (value: Buffer) => T) {
    this.#storage = storage;
    this.#prefix = prefix;
    this.#decode = decode;
  }

  /**
   * Resolves once the list is in memory. Listeners hear of every listed object, and on a relist also of the ones
   * deleted while the watch was down, so what they derive never keeps a deleted object.
   */
  async start(): Promise<void> {
    // An object that cannot be read (encryption key gone, damaged value) is left out rather than failing the start
    // of every reader: for the RBAC authorizer a rule it cannot read grants nothing.
    const list = await this.#storage.list(this.#prefix, { collectCorrupt: true });
    for (const e of list.corrupt ?? []) log.error('Leaving out a stored object that cannot be read', { key: e.key, err: e.message });
    const before = new Map(this.#objects);
    this.#objects.clear();
    for (const item of list.items) this.#objects.set(item.key, this.#object(item));
    for (const [key, obj] of before) if (!this.#objects.has(key)) for (const fn of this.#listeners) fn(obj, true);
    for (const obj of this.#objects.values()) for (const fn of this.#listeners) fn(obj, false);
    this.#watchFrom(list.rv);
  }

  stop(): void {
    this.#stopped = true;
    this.#watch?.stop();
  }

  /** Called after every change, and per object on each (re)list. */
  onChange(fn: (obj: T, deleted: boolean) => void): void {
    this.#listeners.push(fn);
  }

  get(key: string): T | undefined {
    return this.#objects.get(key);
  }

  values(): IterableIterator<T> {
    return this.#objects.values();
  }

  #object(item: StoredObject): T {
    return (item.object as T | undefined) ?? this.#decode(item.value);
  }

  #watchFrom(rv: number): void {
    if (this.#stopped) return;
    this.#watch = this.#storage.watch(this.#prefix, rv, {
      onEvent: (ev) => {
        const obj = (ev.object as T | undefined) ?? this.#decode(ev.value);
        const deleted = ev.type === 'DELETED';
        if (deleted) this.#objects.delete(ev.key);
        else this.#objects.set(ev.key, obj);
        for (const fn of this.#listeners) fn(obj, deleted);
      },
      onError: (err) => {
        if (this.#stopped) return;
        log.warning('Informer watch ended; relisting', { prefix: this.#prefix, err: err.message });
        this.#watch?.stop();
        void this.start().catch((e: Error) => log.error('Informer relist failed', { prefix: this.#prefix, err: e.message }));
      },
    });
  }
}
