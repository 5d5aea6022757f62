/**
 * Scenario 12 (issue 12): what RBAC costs a user it allows, against an admin. One server started with
 * `--token-auth-file` holding two tokens: an admin in system:masters (authorized by the shortcut before RBAC) and a
 * team user in no privileged group, allowed to write events in one namespace by a RoleBinding to the bootstrap
 * `system:event-writer` ClusterRole. Both present a bearer token, so authentication costs the same and the pair
 * differs only in authorization. Same closed-loop creates, A/B pairs in alternating order (ABBA).
 * Goal: the team user's rate within 10 % of the admin's.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { h2Request, startApiServer, type RunningServer } from '../lib/apiserver.ts';
import type { BenchConfig } from '../lib/config.ts';
import { alternateBalanced, measure } from '../lib/measure.ts';
import { newSection, type Section } from '../lib/report.ts';
import { fmt, fmtSpread, judge, spread } from '../lib/stats.ts';

const NAMESPACE = 'bench-team';

export async function runRbacCost(cfg: BenchConfig, log: (m: string) => void): Promise<Section> {
  const section = newSection(
    '12. A user allowed by RBAC vs an admin',
    `One server with \`--token-auth-file\`: an admin token (system:masters, allowed before RBAC is asked) and a team token (no privileged group; a RoleBinding in \`${NAMESPACE}\` to the bootstrap ClusterRole system:event-writer). Both send \`Authorization: Bearer\` over connections without a client certificate, so only authorization differs. Closed-loop creates of ~700 B events at c=64 over HTTP/2, A/B pairs in alternating order (ABBA). ratio = admin rate ÷ team rate per pair (1.10 = the team user 10 % slower). Runs are at least 2.5 s and at least 6 pairs even in quick mode.`,
  );
  const pairs = Math.max(cfg.pairs, 6);
  const runMs = Math.max(cfg.runMs, 2_500);
  const warmupMs = Math.max(cfg.warmupMs, 1_000);
  const dir = mkdtempSync(join(tmpdir(), 'bench-rbac-'));
  const admin = randomBytes(24).toString('hex');
  const team = randomBytes(24).toString('hex');
  writeFileSync(join(dir, 'tokens.csv'), `${admin},bench-admin,uid-admin,"system:masters"\n${team},team-user,uid-team,"team"\n`);
  let s: RunningServer | undefined;
  try {
    s = await startApiServer([`--token-auth-file=${join(dir, 'tokens.csv')}`], 'core-apiserver (RBAC cost)');
    const server = s;
    const binding = {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: 'team-writes-events', namespace: NAMESPACE },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'system:event-writer' },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'team-user' }],
    };
    const r = await h2Request(server.origin, 'POST', `/apis/rbac.authorization.k8s.io/v1/namespaces/${NAMESPACE}/rolebindings`, { creds: server.creds, body: JSON.stringify(binding), headers: { 'content-type': 'application/json' } });
    if (r.status !== 201) throw new Error(`creating the RoleBinding: ${r.status} ${r.body.slice(0, 300)}`);
    // The binding reaches the authorizer through RBAC's watch cache: wait until the team user is allowed.
    const probeCreds = { ca: server.creds.ca, cert: '', key: '' };
    for (let i = 0; ; i++) {
      const p = await h2Request(server.origin, 'GET', `/apis/events.cluster.io/v1/namespaces/${NAMESPACE}/events?limit=1`, { creds: probeCreds, headers: { authorization: `Bearer ${team}` } });
      if (p.status !== 403) break;
      if (i > 100) throw new Error('team user still forbidden after 10 s');
      await new Promise((res) => setTimeout(res, 100));
    }
    const run = (who: 'admin' | 'team', i: number) =>
      measure(server.pid, {
        origin: server.origin,
        creds: probeCreds,
        headers: { authorization: `Bearer ${who === 'admin' ? admin : team}` },
        transport: 'h2',
        concurrency: 64,
        durationMs: runMs,
        ...(i === 0 ? { warmupMs } : {}),
        method: 'POST',
        event: { namespace: NAMESPACE, namePrefix: `${who}${i}-`, start: 0 },
      });
    const { a: adminRuns, b: teamRuns } = await alternateBalanced(pairs, (i) => run('admin', i), (i) => run('team', i));
    const ratios = adminRuns.map((x, i) => x.okPerS / teamRuns[i]!.okPerS);
    const cpu = teamRuns.map((x, i) => x.serverCpuUs / adminRuns[i]!.serverCpuUs);
    const ok = [...adminRuns, ...teamRuns].every((x) => x.errors === 0 && x.lat2xx.n === x.completed);
    const p50 = (xs: typeof adminRuns) => fmtSpread(spread(xs.map((x) => x.lat2xx.p50)));
    section.tables.push({
      head: ['c', 'admin /s', 'team user /s', 'ratio admin ÷ team (per pair)', 'p50 ms admin / team', 'CPU µs/req admin → team'],
      rows: [[
        '64',
        fmtSpread(spread(adminRuns.map((x) => x.okPerS))),
        fmtSpread(spread(teamRuns.map((x) => x.okPerS))),
        fmtSpread(spread(ratios)),
        `${p50(adminRuns)} / ${p50(teamRuns)}`,
        `${fmt(spread(adminRuns.map((x) => x.serverCpuUs)).median)} → ${fmt(spread(teamRuns.map((x) => x.serverCpuUs)).median)}`,
      ]],
    });
    section.goals.push(judge({ id: 'R1', text: 'create rate as admin ÷ as a team user allowed by RBAC ≤ 1.10 (HTTP/2 c=64)', direction: 'atMost', target: 1.1 }, ratios, { ok, why: 'some requests failed' }));
    section.goals.push(judge({ id: 'R1′', text: 'server CPU per create: team user ÷ admin ≤ 1.10 (client-independent)', direction: 'atMost', target: 1.1 }, cpu, { ok, why: 'some requests failed' }));
    log(`  admin/team rate ${fmt(spread(ratios).median)}, CPU team/admin ${fmt(spread(cpu).median)}`);
  } finally {
    await s?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  return section;
}
