/**
 * Child process for the crash-durability test (sqlite.test.ts): creates objects with 64 writes in flight and prints
 * each key once its create has been acknowledged, until it is killed. Usage: crash-writer.ts <db path> <NORMAL|FULL>
 */
import { jsonCodec } from '../testing/json-codec.ts';
import { openSqliteStorage } from './storage.ts';

const [path, sync] = process.argv.slice(2) as [string, 'NORMAL' | 'FULL'];
const storage = openSqliteStorage({ path, codec: jsonCodec, synchronous: sync });
let next = 0;
async function writer(): Promise<never> {
  for (;;) {
    const key = `/crash/ns/obj-${next++}`;
    await storage.create(key, { apiVersion: 'v1', kind: 'Thing', metadata: { name: key, namespace: 'ns' }, data: 'x'.repeat(600) });
    process.stdout.write(key + '\n');
  }
}
process.stdout.write('ready\n');
await Promise.all(Array.from({ length: 64 }, writer));
