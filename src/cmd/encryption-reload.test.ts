import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, it } from 'node:test';
import { configHash } from '../config/encryption.ts';
import { Registry } from '../metrics/registry.ts';
import { writeText } from '../metrics/text.ts';
import { until } from '../../test/helpers/until.ts';
import { EncryptionConfigMetrics, EncryptionConfigReloader, retryDelayMs } from './encryption-reload.ts';

const config = (name: string) =>
  `apiVersion: apiserver.config.cluster.io/v1\nkind: EncryptionConfiguration\nresources: [{resources: [events], providers: [{aesgcm: {keys: [{name: ${name}, secret: ${randomBytes(32).toString('base64')}}]}}]}]\n`;

function reloads(registry: Registry, status: 'success' | 'failure'): number {
  const line = writeText(registry.collect())
    .split('\n')
    .find((l) => l.startsWith('apiserver_encryption_config_controller_automatic_reloads_total{') && l.includes(`status="${status}"`));
  return line ? Number(line.split(' ').pop()) : 0;
}

describe('EncryptionConfigReloader', () => {
  const dirs: string[] = [];
  const reloaders: EncryptionConfigReloader[] = [];
  afterEach(() => {
    for (const r of reloaders.splice(0)) r.stop();
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  it('retries content that failed to apply without waiting for the file to change, as upstream requeues it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'enc-reload-'));
    dirs.push(dir);
    const path = join(dir, 'enc.yaml');
    const first = config('k1');
    writeFileSync(path, first);
    const registry = new Registry({ version: '1.36.0' });
    const metrics = new EncryptionConfigMetrics(registry, 'apiserver-test');
    // A configuration whose KMS plugin is down for the first two attempts, then up.
    let attempts = 0;
    const applied: string[] = [];
    const r = new EncryptionConfigReloader(
      path,
      configHash(first),
      async (c) => {
        if (++attempts <= 2) throw new Error('health check for new transformers failed');
        applied.push(JSON.stringify(c.resources[0]?.providers[0]));
      },
      metrics,
      { pollIntervalMs: 3_600_000 },
    );
    reloaders.push(r);
    writeFileSync(path, config('k2'));
    await r.check();
    assert.equal(reloads(registry, 'failure'), 1);
    await until('the retries', () => applied.length === 1, 5_000);
    assert.equal(attempts, 3, 'two failures, then the retry that applied it');
    assert.equal(reloads(registry, 'failure'), 2);
    assert.equal(reloads(registry, 'success'), 1);
    assert.match(applied[0]!, /"k2"/);
    // In force now: the same content is not applied again.
    await r.check();
    assert.equal(attempts, 3);
  });

  it('backs off as client-go’s default controller rate limiter: 5 ms doubling, at most 1000 s', () => {
    assert.deepEqual([0, 1, 2, 3].map(retryDelayMs), [5, 10, 20, 40]);
    assert.equal(retryDelayMs(17), 655_360);
    assert.equal(retryDelayMs(18), 1_000_000);
    assert.equal(retryDelayMs(1000), 1_000_000);
  });
});
