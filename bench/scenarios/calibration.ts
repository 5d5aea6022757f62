/**
 * How much the load client limits the bare baseline: the bare POST at c=64 driven by wrk (HTTP/1.1) and h2load
 * (HTTP/2), both C, one thread, without a client certificate (they cannot present one; the bare server does not
 * require it), next to the Node load process used everywhere else (which presents the admin certificate).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BareServer } from '../lib/apiserver.ts';
import type { BenchConfig } from '../lib/config.ts';
import { eventBody } from '../lib/event.ts';
import { newSection, type Section } from '../lib/report.ts';
import { fmtSpread, spread } from '../lib/stats.ts';
import type { ToolStatus } from '../lib/tools.ts';

function run(cmd: string, args: string[], timeoutMs: number): Promise<string> {
  return new Promise((resolve) => execFile(cmd, args, { timeout: timeoutMs }, (err, stdout, stderr) => resolve(err && !stdout ? `ERROR ${err.message} ${stderr}` : stdout)));
}

export async function runCalibration(cfg: BenchConfig, bare: BareServer, tools: { wrk: ToolStatus; h2load: ToolStatus }, nodeRates: { h1: number[]; h2: number[] }): Promise<Section> {
  const section = newSection(
    'Load-client ceiling (calibration)',
    'The same bare POST at c=64, driven by the C tools from Debian (no client certificate) and by the Node load process the bench uses (with the client certificate, from scenario 1). When the Node figure is well below the C tools, the bare baseline is client-bound and every "ours ÷ bare" throughput ratio is flattered by that much; the server-CPU-per-request column in scenario 1 is the client-independent comparison.',
  );
  const dir = mkdtempSync(join(tmpdir(), 'bench-cal-'));
  const body = join(dir, 'body.json');
  writeFileSync(body, eventBody({ namespace: 'cal', namePrefix: 'c-' }, 7));
  const lua = join(dir, 'post.lua');
  writeFileSync(lua, `wrk.method = "POST"\nwrk.headers["Content-Type"] = "application/json"\nlocal f = io.open("${body}", "r"); wrk.body = f:read("*a"); f:close()\n`);
  const secs = Math.max(1, Math.round(cfg.runMs / 1000));
  const rows: string[][] = [];
  try {
    if (tools.wrk.ok) {
      const rates: number[] = [];
      for (let r = 0; r < cfg.runs; r++) {
        const out = await run('wrk', ['-t1', '-c64', `-d${secs}s`, '--latency', '-s', lua, `${bare.origin}/create`], secs * 1000 + 30_000);
        const m = /Requests\/sec:\s+([\d.]+)/.exec(out);
        if (m) rates.push(Number(m[1]));
      }
      rows.push(['wrk 4 (C), no client cert', 'HTTP/1.1', fmtSpread(spread(rates))]);
    } else rows.push(['wrk', 'HTTP/1.1', tools.wrk.note]);
    if (tools.h2load.ok) {
      const rates: number[] = [];
      for (let r = 0; r < cfg.runs; r++) {
        const out = await run('h2load', ['-c1', '-m64', `-D${secs}`, '-d', body, '-H', 'content-type: application/json', `${bare.origin}/create`], secs * 1000 + 30_000);
        const m = /finished in [\d.]+\w+, ([\d.]+) req\/s/.exec(out);
        if (m) rates.push(Number(m[1]));
      }
      rows.push(['h2load (C), no client cert, 1 connection × 64 streams', 'HTTP/2', fmtSpread(spread(rates))]);
    } else rows.push(['h2load', 'HTTP/2', tools.h2load.note]);
    rows.push(['bench Node load process, client cert', 'HTTP/1.1', fmtSpread(spread(nodeRates.h1))]);
    rows.push(['bench Node load process, client cert, 1 connection × 64 streams', 'HTTP/2', fmtSpread(spread(nodeRates.h2))]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  section.tables.push({ head: ['client', 'transport', 'bare POST req/s, c=64'], rows });
  return section;
}
