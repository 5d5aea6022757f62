/**
 * Scenario 11 (issue 11): what a bearer token costs against a client certificate. One server started with
 * `--token-auth-file` holding a token of a `system:masters` user (so that authorization is the same short path as the
 * admin certificate's), driven alternately (the order flipping every pair) with the same create load: once presenting the admin client certificate,
 * once presenting no certificate and `Authorization: Bearer <token>`. The certificate is verified once per connection
 * and its user kept on the connection; the token is looked up on every request, through upstream's token cache (10 s
 * for a success) in front of the token union. Goal: the token's rate within 10 % of the certificate's.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { startApiServer, type RunningServer } from '../lib/apiserver.ts';
import type { BenchConfig } from '../lib/config.ts';
import type { Transport } from '../lib/transport.ts';
import { measure, type Measured } from '../lib/measure.ts';
import { newSection, type Section } from '../lib/report.ts';
import { fmt, fmtSpread, judge, spread } from '../lib/stats.ts';

export async function runTokenAuthCost(cfg: BenchConfig, log: (m: string) => void): Promise<Section> {
  const section = newSection(
    '11. Bearer token vs client certificate',
    'The same server (`--token-auth-file`, the token\'s user in system:masters like the admin certificate\'s) and the same closed-loop creates of ~700 B events, A/B pairs in alternating order: A presents the admin client certificate, B no certificate and `Authorization: Bearer <token>`. ratio = certificate rate ÷ token rate per pair (1.10 = the token 10 % slower). Runs are at least 2.5 s and at least 5 pairs even in quick mode: the target is 10 %.',
  );
  const pairs = Math.max(cfg.pairs, 5);
  const runMs = Math.max(cfg.runMs, 2_500);
  const warmupMs = Math.max(cfg.warmupMs, 1_000);
  const dir = mkdtempSync(join(tmpdir(), 'bench-token-'));
  const token = randomBytes(24).toString('hex');
  writeFileSync(join(dir, 'tokens.csv'), `${token},bench-admin,uid-bench-admin,"system:masters"\n`);
  let s: RunningServer | undefined;
  try {
    s = await startApiServer([`--token-auth-file=${join(dir, 'tokens.csv')}`], 'core-apiserver (token file)');
    const server = s;
    // No certificate at all on B's connections (empty PEM means none to node's TLS), so the token is the credential.
    const tokenCreds = { ca: server.creds.ca, cert: '', key: '' };
    const rows: string[][] = [];
    const cases: { transport: Transport; concurrency: number; id: string }[] = [
      { transport: 'h2', concurrency: 64, id: 'T1' },
      ...(cfg.quick ? [] : [{ transport: 'h1' as Transport, concurrency: 64, id: 'T2' }]),
    ];
    for (const c of cases) {
      const run = (kind: 'cert' | 'token', i: number) =>
        measure(server.pid, {
          origin: server.origin,
          creds: kind === 'cert' ? server.creds : tokenCreds,
          ...(kind === 'token' ? { headers: { authorization: `Bearer ${token}` } } : {}),
          transport: c.transport,
          concurrency: c.concurrency,
          durationMs: runMs,
          ...(i === 0 ? { warmupMs } : {}),
          method: 'POST',
          event: { namespace: `bench-token-${c.transport}`, namePrefix: `${kind}${i}-`, start: 0 },
        });
      // The order flips every pair (cert first, then token first), so that neither side always runs on the
      // namespace the other just grew, nor always second after a warm-up.
      const cert: Measured[] = [];
      const tok: Measured[] = [];
      for (let i = 0; i < pairs; i++) {
        if (i % 2 === 0) {
          cert.push(await run('cert', i));
          tok.push(await run('token', i));
        } else {
          tok.push(await run('token', i));
          cert.push(await run('cert', i));
        }
      }
      const ratios = cert.map((x, i) => x.okPerS / tok[i]!.okPerS);
      const cpu = tok.map((x, i) => x.serverCpuUs / cert[i]!.serverCpuUs);
      const ok = [...cert, ...tok].every((x) => x.errors === 0 && x.lat2xx.n === x.completed);
      const p50 = (xs: Measured[]) => fmtSpread(spread(xs.map((x) => x.lat2xx.p50)));
      rows.push([
        c.transport === 'h2' ? 'HTTP/2' : 'HTTP/1.1',
        String(c.concurrency),
        fmtSpread(spread(cert.map((x) => x.okPerS))),
        fmtSpread(spread(tok.map((x) => x.okPerS))),
        fmtSpread(spread(ratios)),
        `${p50(cert)} / ${p50(tok)}`,
        `${fmt(spread(cert.map((x) => x.serverCpuUs)).median)} → ${fmt(spread(tok.map((x) => x.serverCpuUs)).median)}`,
      ]);
      const t = c.transport === 'h2' ? 'HTTP/2' : 'HTTP/1.1';
      section.goals.push(judge({ id: c.id, text: `create rate with the client certificate ÷ with the bearer token ≤ 1.10 (${t} c=${c.concurrency})`, direction: 'atMost', target: 1.1 }, ratios, { ok, why: 'some requests failed' }));
      section.goals.push(judge({ id: `${c.id}′`, text: `server CPU per create: token ÷ certificate ≤ 1.10 (client-independent, ${t})`, direction: 'atMost', target: 1.1 }, cpu, { ok, why: 'some requests failed' }));
      log(`  ${t} c=${c.concurrency}: cert/token rate ${fmt(spread(ratios).median)}, CPU token/cert ${fmt(spread(cpu).median)}`);
    }
    section.tables.push({ head: ['transport', 'c', 'client certificate /s', 'bearer token /s', 'ratio cert ÷ token (per pair)', 'p50 ms cert / token', 'CPU µs/req cert → token'], rows });
  } finally {
    await s?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  return section;
}
