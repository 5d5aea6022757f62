export { SqliteStorage, openSqliteStorage, type SqliteStorageOptions } from './storage.ts';
