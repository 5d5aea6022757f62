/**
 * The SQLite layout, modelled on k3s-io/kine's log table:
 *
 * - `log`: one row per write, `rv` = revision (the rowid, assigned by us in commit order). Holds the value bytes as
 *   the transformer wrote them, without resourceVersion (the row's `rv` supplies it when the value is read; for
 *   DELETED rows: the last value's bytes, which watchers get at the deletion revision), the previous row of the same
 *   key (`prev_rv`) and the TTL deadline. Watch replay pages through it by rowid; lists at an older revision take
 *   the latest row per key with `rv <= R` through the (key, rv) index. Rows written before values were stored
 *   without resourceVersion still carry one; reading replaces it, so they need no migration.
 * - `current`: key → revision of its live row, plus `expires_at`. It is what makes the hot paths cheap: get is a
 *   primary-key lookup plus a rowid lookup into `log`, a prefix list is a key-range scan, count is an index count,
 *   and the TTL sweep reads a small index over live objects only. It stores no value, so every value is written once.
 * - `meta`: the compacted revision (persisted so that a restart keeps refusing compacted reads, and so that the
 *   revision never goes backwards when compaction removed the newest row).
 */
import Database from 'better-sqlite3';

export const TYPE_ADDED = 0;
export const TYPE_MODIFIED = 1;
export const TYPE_DELETED = 2;
export const EVENT_TYPES = ['ADDED', 'MODIFIED', 'DELETED'] as const;

const DDL = `
CREATE TABLE IF NOT EXISTS log (
  rv INTEGER PRIMARY KEY,
  key TEXT NOT NULL,
  type INTEGER NOT NULL,
  value BLOB NOT NULL,
  prev_rv INTEGER NOT NULL,
  expires_at INTEGER
);
CREATE INDEX IF NOT EXISTS log_key_rv ON log (key, rv);
CREATE TABLE IF NOT EXISTS current (
  key TEXT PRIMARY KEY,
  rv INTEGER NOT NULL,
  expires_at INTEGER
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS current_expires ON current (expires_at) WHERE expires_at IS NOT NULL;
CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value INTEGER NOT NULL) WITHOUT ROWID;
`;

/** Opens (creating if needed) the database file in WAL mode with the requested durability. */
export function openDatabase(path: string, synchronous: 'NORMAL' | 'FULL'): Database.Database {
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma(`synchronous = ${synchronous}`);
  // Readers and the sweeper share this one connection; a busy timeout only matters for external tools.
  db.pragma('busy_timeout = 5000');
  // The page cache counts in the server's RSS (issue 4 G7) while the OS page cache holds the file anyway: 16 MB
  // keeps the index interiors and a group's dirty pages. Measured at 1M events in one process: 64 MB → 16 MB saves
  // 54 B RSS per event at the same create CPU (71.9 vs 71.6 µs). Checkpoints normally run on the checkpointer
  // thread (checkpointer.ts); the wal_autocheckpoint limit (~80 MB of WAL) is only the backstop.
  db.pragma('cache_size = -16384');
  db.pragma('wal_autocheckpoint = 20000');
  db.exec(DDL);
  return db;
}

/** Every statement the backend runs, prepared once. Row shapes are given next to each. */
export function prepareStatements(db: Database.Database) {
  return {
    insertLog: db.prepare('INSERT INTO log (rv, key, type, value, prev_rv, expires_at) VALUES (?, ?, ?, ?, ?, ?)'),
    upsertCurrent: db.prepare(
      'INSERT INTO current (key, rv, expires_at) VALUES (?, ?, ?) ON CONFLICT (key) DO UPDATE SET rv = excluded.rv, expires_at = excluded.expires_at',
    ),
    deleteCurrent: db.prepare('DELETE FROM current WHERE key = ?'),
    /** [rv, value, expires_at] */
    getCurrent: db.prepare('SELECT c.rv, l.value, c.expires_at FROM current c JOIN log l ON l.rv = c.rv WHERE c.key = ?').raw(),
    /** [key, rv, value, expires_at] for keys in [from, to), at the latest revision */
    listCurrent: db
      .prepare(
        'SELECT c.key, c.rv, l.value, c.expires_at FROM current c JOIN log l ON l.rv = c.rv WHERE c.key >= ? AND c.key < ? ORDER BY c.key LIMIT ?',
      )
      .raw(),
    countCurrent: db.prepare('SELECT count(*) FROM current WHERE key >= ? AND key < ?').pluck(),
    /** [key, rv, type, value, expires_at] of the latest row per key with rv <= R, for keys in [from, to) */
    listAt: db
      .prepare(
        `SELECT l.key, l.rv, l.type, l.value, l.expires_at
           FROM (SELECT key, max(rv) AS mrv FROM log WHERE key >= ? AND key < ? AND rv <= ? GROUP BY key ORDER BY key LIMIT ?) m
           JOIN log l ON l.rv = m.mrv ORDER BY m.key`,
      )
      .raw(),
    /** number of keys in [from, to) alive at revision R */
    countAt: db
      .prepare(
        `SELECT count(*) FROM (SELECT max(rv) AS mrv FROM log WHERE key >= ? AND key < ? AND rv <= ? GROUP BY key) m
           JOIN log l ON l.rv = m.mrv WHERE l.type != ${TYPE_DELETED}`,
      )
      .pluck(),
    /** [rv, key, type, value, prev_rv, expires_at] of changes with after < rv <= upTo, in revision order */
    logPage: db
      .prepare(
        // `+key` keeps the planner on the rowid range: replay walks revisions, not keys.
        'SELECT rv, key, type, value, prev_rv, expires_at FROM log WHERE rv > ? AND rv <= ? AND +key >= ? AND +key < ? ORDER BY rv LIMIT ?',
      )
      .raw(),
    logValue: db.prepare('SELECT value FROM log WHERE rv = ?').pluck(),
    maxRev: db.prepare('SELECT max(rv) FROM log').pluck(),
    /** [key, rv] of live objects whose deadline has passed, soonest first */
    expired: db.prepare('SELECT key, rv FROM current WHERE expires_at <= ? ORDER BY expires_at LIMIT ?').raw(),
    getMeta: db.prepare('SELECT value FROM meta WHERE name = ?').pluck(),
    setMeta: db.prepare('INSERT INTO meta (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value'),
    /** live keys after a given key, in key order (pages of the key filter's rebuild) */
    keysAfter: db.prepare('SELECT key FROM current WHERE key > ? ORDER BY key LIMIT ?').pluck(),
    /** rv of the live row of a key (committed state) */
    currentRv: db.prepare('SELECT rv FROM current WHERE key = ?').pluck(),
    /**
     * Compaction of the rows in (lo, hi], hi <= the compacted revision, in two steps. Every row that a later row at
     * or below the compacted revision supersedes is that row's `prev_rv`, so the superseded rows are found from the
     * new rows alone (no rescan of what earlier compactions kept); then the tombstones go. The latest row of every
     * live key stays.
     */
    compactSuperseded: db.prepare('DELETE FROM log WHERE rv IN (SELECT prev_rv FROM log WHERE rv > ? AND rv <= ? AND prev_rv > 0)'),
    compactTombstones: db.prepare(`DELETE FROM log WHERE rv > ? AND rv <= ? AND type = ${TYPE_DELETED}`),
    ping: db.prepare('SELECT 1').pluck(),
  };
}

export type Statements = ReturnType<typeof prepareStatements>;

/** Rows per multi-row INSERT of a group commit (12 parameters… 192: well under SQLite's 32766 limit). */
export const MULTI_ROWS = 32;

/**
 * Multi-row INSERTs of `n` rows (1..MULTI_ROWS), prepared on first use: one statement per up to 32 writes instead
 * of two per write, because the fixed cost of each statement call (bind, step, reset across the JS/C++ boundary)
 * is a large part of a small insert.
 */
export class MultiRowStatements {
  readonly #db: Database.Database;
  readonly #log: (Database.Statement | undefined)[] = [];
  readonly #current: (Database.Statement | undefined)[] = [];

  constructor(db: Database.Database) {
    this.#db = db;
  }

  /** INSERT INTO log of `n` rows: (rv, key, type, value, prev_rv, expires_at) each. */
  log(n: number): Database.Statement {
    return (this.#log[n] ??= this.#db.prepare(`INSERT INTO log (rv, key, type, value, prev_rv, expires_at) VALUES ${rows(n, '(?, ?, ?, ?, ?, ?)')}`));
  }

  /** Upsert into current of `n` rows: (key, rv, expires_at) each; a later row for the same key wins, as in sequence. */
  current(n: number): Database.Statement {
    return (this.#current[n] ??= this.#db.prepare(
      `INSERT INTO current (key, rv, expires_at) VALUES ${rows(n, '(?, ?, ?)')} ON CONFLICT (key) DO UPDATE SET rv = excluded.rv, expires_at = excluded.expires_at`,
    ));
  }
}

function rows(n: number, one: string): string {
  return Array.from({ length: n }, () => one).join(', ');
}

/**
 * The exclusive upper bound of the keys starting with `prefix`. SQLite compares TEXT (BINARY collation) by its
 * UTF-8 bytes; bumping the last UTF-16 unit gives the same bound for the ASCII keys we use. An empty prefix has no
 * bound, so a BLOB is used: SQLite orders every TEXT value before every BLOB.
 */
export function prefixEnd(prefix: string): string | Buffer {
  if (prefix === '') return Buffer.from([0xff]);
  return prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);
}
