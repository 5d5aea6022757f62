/**
 * The corelet, the node agent (issue 15): `npm run corelet -- --pod-manifest-path=DIR`. Flags carry kubelet's
 * names; a bad flag or an unusable value stops the start with a message naming the flag and exit code 1.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { hostname } from 'node:os';
import { resolve } from 'node:path';
import { featureGates, formatGates } from '../features.ts';
import { versionInfo } from '../version.ts';
import { EventRecorder } from '../client/event-recorder.ts';
import { RestClient } from '../client/rest.ts';
import { isDNS1123Subdomain } from '../apimachinery/validation/content.ts';
import { Agent } from '../corelet/agent.ts';
import { discoverCgroups } from '../corelet/cgroups.ts';
import { registerNode } from '../corelet/register.ts';
import { buildCoreletAuth, checkCoreletAuthFlags, type CoreletAuthOptions } from './corelet-auth.ts';
import { parseFeatureGates } from './flags.ts';
import { FlagError, FlagSet } from './flagset.ts';
import { issueCertificate } from './x509gen.ts';
import { bootstrapFlags, checkBootstrapFlags, obtainClientCertificate, obtainServingCertificate } from './corelet-bootstrap.ts';

export function newCoreletFlagSet() {
  const fs = new FlagSet('corelet');
  const s = { section: 'Generic' };
  return {
    fs,
    flags: {
      kubeconfig: fs.string('kubeconfig', '', 'Path to a kubeconfig file, specifying how to connect to the API server. Providing --kubeconfig enables API server mode, omitting --kubeconfig enables standalone mode.', s),
      hostnameOverride: fs.string('hostname-override', '', 'If non-empty, will use this string as identification instead of the actual hostname.', s),
      podManifestPath: fs.string('pod-manifest-path', '', 'Path to the directory containing static pod files to run.', s),
      rootDir: fs.string('root-dir', 'data/corelet', 'Directory path for managing corelet files; /stats/summary reports its filesystem as the node\'s fs. (kubelet: /var/lib/kubelet; relative paths are taken from the working directory.)', s),
      address: fs.ip('address', '127.0.0.1', 'The IP address for the corelet to serve on. (kubelet serves on 0.0.0.0; with kubelet\'s authentication defaults, --anonymous-auth=true and --authorization-mode=AlwaysAllow, anyone who reaches the port may do anything, so the corelet stays on loopback unless told otherwise: serve elsewhere with --client-ca-file, --authentication-token-webhook, --authorization-mode=Webhook and --anonymous-auth=false.)', s),
      port: fs.int('port', 10250, 'The port for the corelet to serve on.', s),
      cgroupRoot: fs.string('cgroup-root', '', 'Optional root cgroup to use for pods. Default: \'\', which means use the container runtime default.', s),
      tlsCertFile: fs.string('tls-cert-file', '', 'File containing x509 Certificate used for serving HTTPS. If not given, a self-signed certificate is generated for the node at start.', s),
      tlsKeyFile: fs.string('tls-private-key-file', '', 'File containing x509 private key matching --tls-cert-file.', s),
      // Authentication and authorization of the corelet's API (kubelet's flags and their defaults without a config file).
      anonymousAuth: fs.bool('anonymous-auth', true, 'Enables anonymous requests to the corelet server. Requests that are not rejected by another authentication method are treated as anonymous requests. Anonymous requests have a username of system:anonymous, and a group name of system:unauthenticated.', s),
      clientCAFile: fs.string('client-ca-file', '', 'If set, any request presenting a client certificate signed by one of the authorities in the client-ca-file is authenticated with an identity corresponding to the CommonName of the client certificate.', s),
      tokenWebhook: fs.bool('authentication-token-webhook', false, 'Use the TokenReview API to determine authentication for bearer tokens.', s),
      tokenWebhookCacheTTL: fs.duration('authentication-token-webhook-cache-ttl', 120_000, 'The duration to cache responses from the webhook token authenticator.', s),
      authorizationMode: fs.string('authorization-mode', 'AlwaysAllow', 'Authorization mode for corelet server. Valid options are AlwaysAllow or Webhook. Webhook mode uses the SubjectAccessReview API to determine authorization.', s),
      authorizedTTL: fs.duration('authorization-webhook-cache-authorized-ttl', 300_000, "The duration to cache 'authorized' responses from the webhook authorizer.", s),
      unauthorizedTTL: fs.duration('authorization-webhook-cache-unauthorized-ttl', 30_000, "The duration to cache 'unauthorized' responses from the webhook authorizer.", s),
      ...bootstrapFlags(fs, s),
      featureGates: fs.add<Record<string, boolean>>({ name: 'feature-gates', type: 'mapStringBool', default: {}, help: 'A set of key=value pairs that describe feature gates for alpha/experimental features.', section: 'Generic', parse: parseFeatureGates, format: formatGates }),
      verbosity: fs.level('v', 0, 'number for the log level verbosity', { section: 'Logs', shorthand: 'v' }),
      help: fs.bool('help', false, 'help for corelet', { section: 'Generic', shorthand: 'h' }),
    },
  };
}

export type CoreletOptions = ReturnType<typeof parseCoreletFlags>;

/** Parses and checks the flags; throws FlagError naming the flag. */
export function parseCoreletFlags(argv: string[]) {
  const { fs, flags } = newCoreletFlagSet();
  const positional = fs.parse(argv);
  if (positional.length) throw new FlagError(`unknown command "${positional[0]}" for "corelet"`);
  const nodeName = (flags.hostnameOverride.value || hostname()).trim().toLowerCase();
  const errs = isDNS1123Subdomain(nodeName);
  if (errs.length) throw new FlagError(`--hostname-override: invalid node name ${JSON.stringify(nodeName)}: ${errs.join(', ')}`);
  if (flags.port.value < 0 || flags.port.value > 65535) throw new FlagError(`--port: invalid port ${flags.port.value}: must be between 0 and 65535`);
  const manifestPath = flags.podManifestPath.value ? resolve(flags.podManifestPath.value) : '';
  if (manifestPath && !(existsSync(manifestPath) && statSync(manifestPath).isDirectory())) {
    throw new FlagError(`--pod-manifest-path: ${manifestPath} is not a directory`);
  }
  const bootstrap = checkBootstrapFlags(flags, flags.kubeconfig.value, flags.address.value);
  if (/\s|\.\./.test(flags.cgroupRoot.value)) throw new FlagError(`--cgroup-root: invalid value ${JSON.stringify(flags.cgroupRoot.value)}: a relative cgroup path without blanks or ".."`);
  if (Boolean(flags.tlsCertFile.value) !== Boolean(flags.tlsKeyFile.value)) throw new FlagError('--tls-cert-file and --tls-private-key-file must be given together');
  const auth: CoreletAuthOptions = {
    anonymousAuth: flags.anonymousAuth.value,
    clientCAFile: flags.clientCAFile.value,
    tokenWebhook: flags.tokenWebhook.value,
    tokenWebhookCacheTTLMs: flags.tokenWebhookCacheTTL.value,
    authorizationMode: flags.authorizationMode.value,
    authorizedTTLMs: flags.authorizedTTL.value,
    unauthorizedTTLMs: flags.unauthorizedTTL.value,
  };
  checkCoreletAuthFlags(auth, flags.kubeconfig.value);
  featureGates.set(flags.featureGates.value);
  return {
    auth,
    /** Every flag with its effective value, for /flagz. */
    flagValues: () => fs.flags().map((f) => ({ name: f.spec.name, value: f.spec.format(f.value), classified: f.spec.classified ?? false })),
    help: flags.help.value,
    usage: () => `Usage:\n  corelet [flags]\n${fs.sectionUsages(['Generic', 'Logs'])}`,
    nodeName,
    manifestPath,
    rootDir: resolve(flags.rootDir.value || 'data/corelet'),
    kubeconfig: flags.kubeconfig.value,
    address: flags.address.value,
    port: flags.port.value,
    cgroupRoot: flags.cgroupRoot.value.replace(/^\/+|\/+$/g, ''),
    tlsCertFile: flags.tlsCertFile.value,
    tlsKeyFile: flags.tlsKeyFile.value,
    bootstrap,
    verbosity: flags.verbosity.value,
  };
}

export async function run(argv: string[]): Promise<number> {
  let opts: CoreletOptions;
  try {
    opts = parseCoreletFlags(argv);
  } catch (e) {
    if (e instanceof FlagError || (e as Error).message.startsWith('unrecognized feature gate')) {
      process.stderr.write(`Error: ${(e as Error).message}\n`);
      return 1;
    }
    throw e;
  }
  if (opts.help) {
    process.stdout.write(opts.usage());
    return 0;
  }
  const log = (level: number, msg: string) => {
    if (level <= opts.verbosity) process.stderr.write(`${new Date().toISOString()} corelet: ${msg}\n`);
  };
  const cgroups = discoverCgroups();
  if (featureGates.enabled('PodAndContainerStatsFromCRI')) {
    log(0, 'PodAndContainerStatsFromCRI is on, but the corelet runs processes without a CRI runtime: pod and container statistics come from their cgroups');
  }
  const userAgent = `corelet/${versionInfo.gitVersion} (${versionInfo.platform}) kubernetes/${versionInfo.gitCommit.slice(0, 7)}`;
  // TLS bootstrap: the node's client certificate from a CSR filed with the bootstrap credential, when --kubeconfig
  // has none usable (kubelet's LoadClientCert).
  if (opts.bootstrap.bootstrapKubeconfig) {
    try {
      await obtainClientCertificate({ kubeconfig: opts.kubeconfig, settings: opts.bootstrap, nodeName: opts.nodeName, log, userAgent });
    } catch (e) {
      process.stderr.write(`Error: --bootstrap-kubeconfig: ${(e as Error).message}\n`);
      return 1;
    }
  }
  let auth: ReturnType<typeof buildCoreletAuth>;
  try {
    auth = buildCoreletAuth(opts.auth, opts.kubeconfig, log);
  } catch (e) {
    process.stderr.write(`Error: ${(e as Error).message}\n`);
    return 1;
  }
  // API server mode: the Node's registration and the Events share one client; Events are recorded as kubelet's
  // are, by the agent (reportingController `corelet`) of this node (reportingInstance).
  let client: RestClient | undefined;
  if (opts.kubeconfig) {
    try {
      client = RestClient.fromKubeconfig(opts.kubeconfig, { userAgent });
    } catch (e) {
      process.stderr.write(`Error: --kubeconfig: ${(e as Error).message}\n`);
      return 1;
    }
  }
  // The serving certificate: the given files; else with --rotate-server-certificates one the cluster CA signs
  // through a kubelet-serving CSR (stored in --cert-dir and reused); else a self-signed one for the node's name and
  // the listen address (as kubelet makes when it has neither files nor certificate rotation).
  let tls: { certPem: string; keyPem: string };
  try {
    tls = opts.tlsCertFile
      ? { certPem: readFileSync(opts.tlsCertFile, 'utf8'), keyPem: readFileSync(opts.tlsKeyFile, 'utf8') }
      : opts.bootstrap.rotateServerCertificates && client
        ? await obtainServingCertificate({ client, settings: opts.bootstrap, nodeName: opts.nodeName, log })
        : await selfSigned(opts.nodeName, opts.address, opts.bootstrap.nodeIP);
  } catch (e) {
    process.stderr.write(`Error: ${opts.tlsCertFile ? '--tls-cert-file' : '--rotate-server-certificates'}: ${(e as Error).message}\n`);
    return 1;
  }
  const recorder = client ? new EventRecorder({ client, reportingController: 'corelet', reportingInstance: opts.nodeName, log: (level, msg) => log(level, `events: ${msg}`) }) : undefined;
  const agent = new Agent({ nodeName: opts.nodeName, manifestPath: opts.manifestPath, rootDir: opts.rootDir, cgroupRoot: opts.cgroupRoot, address: opts.address, port: opts.port, tls, log, cgroups, flags: opts.flagValues, auth, ...(recorder ? { events: recorder } : {}) });
  try {
    await agent.start();
  } catch (e) {
    process.stderr.write(`Error: --port: cannot serve on ${opts.address}:${opts.port}: ${(e as Error).message}\n`);
    await agent.stop();
    await recorder?.shutdown(1000);
    return 1;
  }
  log(0, `serving on https://${opts.address}:${agent.port} as node ${opts.nodeName}`);
  let registration: { stop(): void } | undefined;
  if (client) registration = registerNode({ client, nodeName: opts.nodeName, port: agent.port, address: opts.bootstrap.nodeIP, log, notReady: () => agent.notReady(), ...(recorder ? { events: recorder } : {}) });
  await new Promise<void>((resolveStop) => {
    const onSignal = (sig: string) => {
      log(0, `${sig}: stopping every pod and removing their cgroups`);
      resolveStop();
    };
    process.once('SIGTERM', () => onSignal('SIGTERM'));
    process.once('SIGINT', () => onSignal('SIGINT'));
  });
  registration?.stop();
  await agent.stop();
  // The Killing events of the stop, and the last counts of ongoing series, leave before the process does.
  if (recorder && !(await recorder.shutdown(5000))) log(0, `events: not every event was written before stopping (${JSON.stringify(recorder.dropped)})`);
  log(0, 'stopped');
  return 0;
}

async function selfSigned(nodeName: string, address: string, nodeIP: string): Promise<{ certPem: string; keyPem: string }> {
  const hosts = [...new Set([nodeName, 'localhost', '127.0.0.1', nodeIP, ...(address !== '0.0.0.0' && address !== '::' ? [address] : [])])];
  // kubelet's self-signed serving certificate is named `<host>@<unix seconds>`.
  const cert = await issueCertificate({ subject: [{ CN: [`${nodeName}@${Math.floor(Date.now() / 1000)}`] }], validDays: 365, serverAuth: true, hosts });
  return { certPem: cert.certPem, keyPem: cert.key.pem };
}

if (process.argv[1] && import.meta.url === new URL(`file://${resolve(process.argv[1])}`).href) {
  run(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (e) => {
      process.stderr.write(`Error: ${(e as Error).stack ?? e}\n`);
      process.exit(1);
    },
  );
}
