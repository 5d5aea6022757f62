import { versionInfo } from '../version.ts';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { featureGates } from '../features.ts';
import { FlagError, flagRegistry, parseFlags, requestHeaderWarnings, usage } from './flags.ts';

function fails(argv: string[], message: string): void {
  assert.throws(() => parseFlags(argv), (e: unknown) => {
    assert.ok(e instanceof FlagError, `expected FlagError, got ${String(e)}`);
    assert.equal(e.message, message);
    return true;
  });
}

test('defaults are kube-apiserver\'s (with our storage and bind address)', () => {
  assert.deepEqual(parseFlags([]), {
    dataDir: './data',
    bindAddress: '127.0.0.1',
    securePort: 6443,
    tlsCertFile: '',
    tlsPrivateKeyFile: '',
    clientCaFile: '',
    kubelet: { clientCertificate: '', clientKey: '', certificateAuthority: '', preferredAddressTypes: ['Hostname', 'InternalDNS', 'InternalIP', 'ExternalDNS', 'ExternalIP'] },
    clusterSigning: { certFile: '', keyFile: '', durationMs: 31_536_000_000 },
    anonymousAuth: true,
    anonymousAuthSet: false,
    authenticationConfig: '',
    authorization: { modes: ['RBAC'], policyFile: '', webhookConfigFile: '', webhookVersion: 'v1beta1', webhookCacheAuthorizedTTLMs: 300_000, webhookCacheUnauthorizedTTLMs: 30_000, config: '' },
    tokenAuthFile: '',
    oidc: { issuerURL: '', clientID: '', caFile: '', usernameClaim: 'sub', usernamePrefix: '', groupsClaim: '', groupsPrefix: '', signingAlgs: ['RS256'], requiredClaims: {}, flagsSet: false },
    requestHeader: { clientCaFile: '', allowedNames: [], usernameHeaders: [], uidHeaders: [], groupHeaders: [], extraHeaderPrefixes: [] },
    eventTtlMs: 3_600_000,
    storageBackend: 'sqlite',
    etcd: {
      servers: [], prefix: '/registry', caFile: '', certFile: '', keyFile: '', serversOverrides: [],
      compactionIntervalMs: 300_000, countMetricPollPeriodMs: 60_000, dbMetricPollIntervalMs: 30_000,
      healthcheckTimeoutMs: 2_000, readycheckTimeoutMs: 2_000, leaseReuseDurationSeconds: 60,
    },
    sqliteSynchronous: 'NORMAL',
    shutdownDelayMs: 0,
    maxRequestsInflight: 400,
    maxMutatingRequestsInflight: 200,
    minRequestTimeoutSeconds: 1800,
    requestTimeoutMs: 60_000,
    verbosity: 0,
    tracingConfigFile: '',
    encryptionProviderConfig: '',
    encryptionProviderConfigAutomaticReload: false,
    enableAdmissionPlugins: [],
    disableAdmissionPlugins: [],
    admissionControlConfigFile: '',
    featureGates: {},
    showHiddenMetricsForVersion: '',
    disabledMetrics: [],
    allowMetricLabels: {},
    allowMetricLabelsManifest: '',
    help: false,
    version: false,
  });
});

test('--tracing-config-file: a file that exists (what is in it is checked at start-up)', () => {
  assert.equal(parseFlags([`--tracing-config-file=${import.meta.filename}`]).tracingConfigFile, import.meta.filename);
  fails(['--tracing-config-file=/no/such/tracing.yaml'], 'tracing-config-file /no/such/tracing.yaml does not exist');
  const f = flagRegistry().get('tracing-config-file');
  assert.deepEqual([f?.section, f?.type, f?.help], ['Traces', 'string', 'File with apiserver tracing configuration.']);
});

test('metrics flags: --show-hidden-metrics-for-version takes only the previous minor, --disabled-metrics metric names (repeatable)', () => {
  // Only the minor before the binary's own is accepted.
  const prev = `${versionInfo.major}.${Number(versionInfo.minor) - 1}`;
  const o = parseFlags([`--show-hidden-metrics-for-version=${prev}`, '--disabled-metrics=apiserver_request_total,apiserver_response_sizes', '--disabled-metrics', 'etcd_bookmark_counts']);
  assert.equal(o.showHiddenMetricsForVersion, prev);
  assert.deepEqual(o.disabledMetrics, ['apiserver_request_total', 'apiserver_response_sizes', 'etcd_bookmark_counts']);
  assert.equal(flagRegistry().get('disabled-metrics')?.value, '[apiserver_request_total,apiserver_response_sizes,etcd_bookmark_counts]');
  assert.equal(flagRegistry().get('disabled-metrics')?.default, '[]');
  assert.throws(() => parseFlags(['--show-hidden-metrics-for-version=1.30']), {
    message: `metrics.showHiddenMetricsForVersion: Invalid value: "1.30": must be omitted or have the value '${prev}'; only the previous minor version is allowed`,
  });
  assert.throws(() => parseFlags(['--disabled-metrics=ok_name,bad-name']), {
    message: 'metrics.disabledMetrics: Invalid value: []string{"ok_name", "bad-name"}: must be fully qualified metric names matching "^[a-zA-Z_:][a-zA-Z0-9_:]*$", got "bad-name"',
  });
});

test('--flag=value and --flag value', () => {
  const o = parseFlags(['--data-dir=/tmp/x', '--secure-port', '0', '--bind-address', '::1', '--event-ttl=2h30m',
    '--request-timeout', '30s', '--shutdown-delay-duration=1.5s', '--max-requests-inflight=0x10', '--min-request-timeout', '60']);
  assert.equal(o.dataDir, '/tmp/x');
  assert.equal(o.securePort, 0);
  assert.equal(o.bindAddress, '::1');
  assert.equal(o.eventTtlMs, 9_000_000);
  assert.equal(o.requestTimeoutMs, 30_000);
  assert.equal(o.shutdownDelayMs, 1500);
  assert.equal(o.maxRequestsInflight, 16);
  assert.equal(o.minRequestTimeoutSeconds, 60);
});

test('values may be empty, contain "=" or start with "-" when separate', () => {
  assert.equal(parseFlags(['--data-dir=a=b']).dataDir, 'a=b');
  assert.equal(parseFlags(['--data-dir', '-weird']).dataDir, '-weird');
  assert.equal(parseFlags(['--client-ca-file=']).clientCaFile, '');
});

test('last occurrence wins and _ is normalised to -', () => {
  assert.equal(parseFlags(['--secure-port=1', '--secure_port=2']).securePort, 2);
});

test('booleans: --x, --x=true, --x=false; "--x false" leaves a stray argument', () => {
  assert.equal(parseFlags(['--help']).help, true);
  assert.equal(parseFlags(['--help=true']).help, true);
  assert.equal(parseFlags(['--help=false']).help, false);
  assert.equal(parseFlags(['--help=F']).help, false);
  fails(['--help', 'false'], '"core-apiserver" does not take any arguments, got ["false"]');
  fails(['--help=maybe'], 'invalid argument "maybe" for "-h, --help" flag: strconv.ParseBool: parsing "maybe": invalid syntax');
});

test('verbosity: -v=4, -v 4, -v4, --v=4, --v 4', () => {
  for (const argv of [['-v=4'], ['-v', '4'], ['-v4'], ['--v=4'], ['--v', '4']]) {
    assert.equal(parseFlags(argv).verbosity, 4, argv.join(' '));
  }
  fails(['-v=x'], 'invalid argument "x" for "-v, --v" flag: strconv.ParseInt: parsing "x": invalid syntax');
  fails(['-v'], "flag needs an argument: 'v' in -v");
});

test('help: -h, --help, combined shorthands; help skips validation', () => {
  assert.equal(parseFlags(['-h']).help, true);
  assert.equal(parseFlags(['-hv3']).verbosity, 3);
  assert.equal(parseFlags(['--help', '--secure-port=99999']).help, true);
  assert.equal(parseFlags(['--version']).version, true);
});

test('"--" ends the flags', () => {
  fails(['--', '--data-dir=x'], '"core-apiserver" does not take any arguments, got ["--data-dir=x"]');
});

test('pflag error texts', () => {
  fails(['--foo'], 'unknown flag: --foo');
  fails(['--foo=bar'], 'unknown flag: --foo');
  fails(['-x'], "unknown shorthand flag: 'x' in -x");
  fails(['---data-dir=x'], 'bad flag syntax: ---data-dir=x');
  fails(['--=x'], 'bad flag syntax: --=x');
  fails(['--data-dir'], 'flag needs an argument: --data-dir');
  fails(['--secure-port=abc'], 'invalid argument "abc" for "--secure-port" flag: strconv.ParseInt: parsing "abc": invalid syntax');
  fails(['--secure-port', '1.5'], 'invalid argument "1.5" for "--secure-port" flag: strconv.ParseInt: parsing "1.5": invalid syntax');
  fails(['--max-requests-inflight=99999999999999999999'],
    'invalid argument "99999999999999999999" for "--max-requests-inflight" flag: strconv.ParseInt: parsing "99999999999999999999": value out of range');
  fails(['--event-ttl=5'], 'invalid argument "5" for "--event-ttl" flag: time: missing unit in duration "5"');
  fails(['--event-ttl=1d'], 'invalid argument "1d" for "--event-ttl" flag: time: unknown unit "d" in duration "1d"');
  fails(['--request-timeout=soon'], 'invalid argument "soon" for "--request-timeout" flag: time: invalid duration "soon"');
  fails(['--bind-address=localhost'], 'invalid argument "localhost" for "--bind-address" flag: failed to parse IP: "localhost"');
  fails(['serve'], '"core-apiserver" does not take any arguments, got ["serve"]');
});

test('validation after parsing', () => {
  fails(['--storage-backend=etcd2'], '--storage-backend: unsupported value "etcd2" (supported: sqlite, etcd3)');
  fails(['--sqlite-synchronous=OFF'], '--sqlite-synchronous: unsupported value "OFF" (supported: NORMAL, FULL)');
  assert.equal(parseFlags(['--sqlite-synchronous=full']).sqliteSynchronous, 'FULL');
  fails(['--secure-port=65536'], '--secure-port 65536 must be between 0 and 65535, inclusive. 0 picks a free port');
  fails(['--tls-cert-file=a.crt'], '--tls-cert-file and --tls-private-key-file must be specified together');
  fails(['--tls-private-key-file=a.key'], '--tls-cert-file and --tls-private-key-file must be specified together');
  assert.equal(parseFlags(['--tls-cert-file=a.crt', '--tls-private-key-file=a.key']).tlsCertFile, 'a.crt');
  fails(['--max-requests-inflight=-1'], '--max-requests-inflight can not be negative value');
  fails(['--shutdown-delay-duration=-1s'], '--shutdown-delay-duration can not be negative value');
  fails(['--event-ttl=0s'], '--event-ttl must be greater than 0s');
  fails(['--secure-port=-1', '--max-mutating-requests-inflight=-2'],
    '[--secure-port -1 must be between 0 and 65535, inclusive. 0 picks a free port, --max-mutating-requests-inflight can not be negative value]');
});

test('metrics flags: --allow-metric-labels as pflag stringToString, checked as upstream; a bad manifest is refused', () => {
  const o = parseFlags(['--allow-metric-labels=apiserver_request_total,verb=GET,LIST', '--allow-metric-labels', 'apiserver_request_total,code=200']);
  assert.deepEqual(o.allowMetricLabels, { 'apiserver_request_total,verb': 'GET,LIST', 'apiserver_request_total,code': '200' });
  assert.equal(flagRegistry().get('allow-metric-labels')?.value, '["apiserver_request_total,code=200","apiserver_request_total,verb=GET,LIST"]');
  assert.throws(() => parseFlags(['--allow-metric-labels=verb=GET']), { message: /^metrics\.allowListMapping: Invalid value: map\[string\]string\{"verb":"GET"\}: must have keys with format/ });
  assert.throws(() => parseFlags(['--allow-metric-labels-manifest=/nonexistent/allow.yaml']), {
    message: 'metrics.allowListMappingManifest: Invalid value: "/nonexistent/allow.yaml": failed to read allow list manifest: open /nonexistent/allow.yaml: no such file or directory',
  });
});

test('registry holds name, type, default, help and current value of every flag', () => {
  parseFlags(['--event-ttl=90m', '-v', '2']);
  const reg = flagRegistry();
  assert.deepEqual([...reg.keys()], [
    'admission-control-config-file', 'allow-metric-labels', 'allow-metric-labels-manifest', 'anonymous-auth', 'authentication-config', 'authorization-config', 'authorization-mode',
    'authorization-policy-file', 'authorization-webhook-cache-authorized-ttl', 'authorization-webhook-cache-unauthorized-ttl', 'authorization-webhook-config-file', 'authorization-webhook-version',
    'bind-address', 'client-ca-file', 'cluster-signing-cert-file', 'cluster-signing-duration', 'cluster-signing-key-file', 'data-dir', 'disable-admission-plugins', 'disabled-metrics', 'enable-admission-plugins', 'encryption-provider-config', 'encryption-provider-config-automatic-reload', 'etcd-cafile', 'etcd-certfile', 'etcd-compaction-interval',
    'etcd-count-metric-poll-period', 'etcd-db-metric-poll-interval', 'etcd-healthcheck-timeout', 'etcd-keyfile', 'etcd-prefix', 'etcd-readycheck-timeout', 'etcd-servers', 'etcd-servers-overrides',
    'event-ttl', 'feature-gates', 'help', 'kubelet-certificate-authority', 'kubelet-client-certificate', 'kubelet-client-key',
    'kubelet-preferred-address-types', 'lease-reuse-duration-seconds', 'max-mutating-requests-inflight', 'max-requests-inflight', 'min-request-timeout', 'oidc-ca-file', 'oidc-client-id',
    'oidc-groups-claim', 'oidc-groups-prefix', 'oidc-issuer-url', 'oidc-required-claim', 'oidc-signing-algs', 'oidc-username-claim', 'oidc-username-prefix', 'request-timeout',
    'requestheader-allowed-names', 'requestheader-client-ca-file', 'requestheader-extra-headers-prefix',
    'requestheader-group-headers', 'requestheader-uid-headers', 'requestheader-username-headers', 'secure-port', 'show-hidden-metrics-for-version', 'shutdown-delay-duration',
    'sqlite-synchronous', 'storage-backend', 'tls-cert-file', 'tls-private-key-file', 'token-auth-file', 'tracing-config-file', 'v', 'version',
  ]);
  assert.deepEqual(reg.get('event-ttl'), {
    name: 'event-ttl', type: 'duration', default: '1h0m0s', value: '1h30m0s', help: 'Amount of time to retain events.',
    section: 'Misc', changed: true, classified: false,
  });
  assert.equal(reg.get('v')?.value, '2');
  assert.equal(reg.get('v')?.shorthand, 'v');
  assert.equal(reg.get('help')?.type, 'bool');
  assert.equal(reg.get('secure-port')?.value, '6443');
  assert.equal(reg.get('secure-port')?.changed, false);
  // A failed parse leaves the registry of the last good one.
  assert.throws(() => parseFlags(['--event-ttl=1s', '--foo']));
  assert.equal(flagRegistry().get('event-ttl')?.value, '1h30m0s');
});

test('usage lists every flag with type, default and help, in kube-apiserver sections', () => {
  const text = usage();
  assert.match(text, /^Usage:\n {2}core-apiserver \[flags\]\n/m);
  for (const info of flagRegistry().values()) {
    assert.ok(text.includes(`--${info.name}`), info.name);
    // continuation lines of a multi-line help are indented to the help column
    for (const line of info.help.split('\n')) assert.ok(text.includes(line), info.name);
  }
  const sections = [...text.matchAll(/^(.*) flags:$/gm)].map((m) => m[1]);
  assert.deepEqual(sections, ['Generic', 'Storage', 'Secure serving', 'Authentication', 'Authorization', 'Admission', 'Metrics', 'Misc', 'Logs', 'Traces', 'Global']);
  assert.match(text, /^ {6}--event-ttl duration {2,}Amount of time to retain events\. \(default 1h0m0s\)$/m);
  assert.match(text, /^ {6}--data-dir string {2,}.* \(default "\.\/data"\)$/m);
  assert.match(text, /^ {6}--secure-port int {2,}.* \(default 6443\)$/m);
  assert.match(text, /^ {6}--bind-address ip {2,}.* \(default 127\.0\.0\.1\)$/m);
  assert.match(text, /^ {2}-v, --v Level {2}number for the log level verbosity$/m);
  assert.match(text, /^ {2}-h, --help {5}help for core-apiserver$/m);
  // Zero defaults are not printed, as in pflag.
  assert.match(text, /--shutdown-delay-duration duration {2,}Time to delay[^\n]*server\.$/m);
});

test('--feature-gates: kube syntax, repeated use accumulates, and it sets the process-wide gates', () => {
  assert.equal(featureGates.enabled('ShardedListAndWatch'), false);
  const o = parseFlags(['--feature-gates=ShardedListAndWatch=true']);
  assert.deepEqual(o.featureGates, { ShardedListAndWatch: true });
  assert.equal(featureGates.enabled('ShardedListAndWatch'), true);
  assert.equal(flagRegistry().get('feature-gates')?.value, 'ShardedListAndWatch=true');
  assert.equal(flagRegistry().get('feature-gates')?.type, 'mapStringBool');

  // blanks trimmed, empty pairs skipped, Go booleans, the last setting of a gate wins, flags accumulate
  const many = parseFlags(['--feature-gates', ' ShardedListAndWatch = 1 ,,AllBeta=F', '--feature-gates=ShardedListAndWatch=false,AllAlpha=t']);
  assert.deepEqual(many.featureGates, { ShardedListAndWatch: false, AllBeta: false, AllAlpha: true });
  assert.equal(flagRegistry().get('feature-gates')?.value, 'AllAlpha=true,AllBeta=false,ShardedListAndWatch=false');
  assert.equal(featureGates.enabled('ShardedListAndWatch'), false, 'a gate set by name wins over AllAlpha');
  parseFlags(['--feature-gates=AllAlpha=true']);
  assert.equal(featureGates.enabled('ShardedListAndWatch'), true, 'AllAlpha turns on alpha gates not set by name');

  // a later parse without the flag returns the gates to their defaults
  assert.deepEqual(parseFlags([]).featureGates, {});
  assert.equal(featureGates.enabled('ShardedListAndWatch'), false);
  assert.equal(parseFlags(['--feature-gates=']).featureGates.ShardedListAndWatch, undefined);
});

test('--feature-gates errors are component-base\'s, wrapped by pflag; a failed parse leaves the gates alone', () => {
  parseFlags(['--feature-gates=ShardedListAndWatch=true']);
  fails(['--feature-gates=Foo=true'], 'invalid argument "Foo=true" for "--feature-gates" flag: unrecognized feature gate: Foo');
  fails(['--feature-gates=ShardedListAndWatch=true,shardedlistandwatch=true'],
    'invalid argument "ShardedListAndWatch=true,shardedlistandwatch=true" for "--feature-gates" flag: unrecognized feature gate: shardedlistandwatch');
  fails(['--feature-gates=ShardedListAndWatch=yes'],
    'invalid argument "ShardedListAndWatch=yes" for "--feature-gates" flag: invalid value of ShardedListAndWatch=yes, err: strconv.ParseBool: parsing "yes": invalid syntax');
  fails(['--feature-gates=ShardedListAndWatch'], 'invalid argument "ShardedListAndWatch" for "--feature-gates" flag: missing bool value for ShardedListAndWatch');
  fails(['--feature-gates'], 'flag needs an argument: --feature-gates');
  fails(['--feature-gates=NativeHistograms=maybe'],
    'invalid argument "NativeHistograms=maybe" for "--feature-gates" flag: invalid value of NativeHistograms=maybe, err: strconv.ParseBool: parsing "maybe": invalid syntax');
  fails(['--feature-gates=ComponentSLIs=false'],
    'invalid argument "ComponentSLIs=false" for "--feature-gates" flag: cannot set feature gate ComponentSLIs to false, feature is locked to true');
  assert.equal(featureGates.enabled('ShardedListAndWatch'), true);
  parseFlags([]);
});

test('--feature-gates help lists every gate with its stage and default, indented like pflag', () => {
  const text = usage();
  assert.match(text, /^ {6}--feature-gates mapStringBool( +)A set of key=value pairs that describe feature gates for alpha\/experimental features\. Options are:\n/m);
  const column = /^( {6}--feature-gates mapStringBool +)/m.exec(text)![1]!.length;
  const indent = ' '.repeat(column);
  for (const line of ['AllAlpha=true|false (ALPHA - default=false)', 'AllBeta=true|false (BETA - default=false)',
    'ComponentFlagz=true|false (BETA - default=true)', 'ComponentStatusz=true|false (BETA - default=true)',
    'NativeHistograms=true|false (ALPHA - default=false)', 'PodAndContainerStatsFromCRI=true|false (ALPHA - default=false)',
    'ShardedListAndWatch=true|false (ALPHA - default=false)']) {
    assert.ok(text.includes(`\n${indent}${line}\n`), line);
  }
  assert.match(text, /^Generic flags:\n[\s\S]*--feature-gates[\s\S]*\nStorage flags:/m);
  assert.ok(!text.includes('ComponentSLIs=') && !text.includes('CoreletPSI='), 'GA gates are not offered, as upstream\'s KnownFeatures');
});

test('authentication flags: --anonymous-auth, --token-auth-file and the --requestheader-* lists with upstream\'s checks', () => {
  const o = parseFlags([
    '--anonymous-auth=false',
    '--token-auth-file=/etc/tokens.csv',
    '--requestheader-client-ca-file=/etc/front-proxy-ca.crt',
    '--requestheader-allowed-names=front-proxy-client,"aggregator, the"',
    '--requestheader-allowed-names=other',
    '--requestheader-username-headers=X-Remote-User',
    '--requestheader-group-headers=X-Remote-Group',
    '--requestheader-uid-headers=X-Remote-Uid',
    '--requestheader-extra-headers-prefix=X-Remote-Extra-',
  ]);
  assert.equal(o.anonymousAuth, false);
  assert.equal(o.tokenAuthFile, '/etc/tokens.csv');
  assert.deepEqual(o.requestHeader, {
    clientCaFile: '/etc/front-proxy-ca.crt',
    allowedNames: ['front-proxy-client', 'aggregator, the', 'other'],
    usernameHeaders: ['X-Remote-User'],
    uidHeaders: ['X-Remote-Uid'],
    groupHeaders: ['X-Remote-Group'],
    extraHeaderPrefixes: ['X-Remote-Extra-'],
  });
  assert.equal(flagRegistry().get('requestheader-allowed-names')?.value, '[front-proxy-client,aggregator, the,other]');
  assert.equal(flagRegistry().get('requestheader-allowed-names')?.default, '[]');
  assert.equal(flagRegistry().get('anonymous-auth')?.default, 'true');
  assert.equal(flagRegistry().get('requestheader-username-headers')?.section, 'Authentication');
  fails(['--requestheader-username-headers=X-Remote-User, '], 'empty value in "requestheader-username-headers"');
  fails(['--requestheader-allowed-names=a,,b'], 'empty value in "requestheader-allowed-names"');
  fails(['--requestheader-uid-headers=X-Uid'], '--requestheader-uid-headers is set without specifying the standard X-Remote-Uid header - API aggregation will not work');
  fails(['--requestheader-group-headers=a"b'], 'invalid argument "a\\"b" for "--requestheader-group-headers" flag: parse error on line 1, column 2: bare " in non-quoted-field');
});

test('request header warnings: lists that leave out the standard header, as upstream warns', () => {
  const none = { clientCaFile: '', allowedNames: [], usernameHeaders: [], uidHeaders: [], groupHeaders: [], extraHeaderPrefixes: [] };
  assert.deepEqual(requestHeaderWarnings(none), []);
  assert.deepEqual(requestHeaderWarnings({ ...none, usernameHeaders: ['x-remote-user'], groupHeaders: ['X-Group'], extraHeaderPrefixes: ['X-Extra-'] }), [
    '--requestheader-group-headers is set without specifying the standard X-Remote-Group header - API aggregation will not work',
    '--requestheader-extra-headers-prefix is set without specifying the standard X-Remote-Extra- header prefix - API aggregation will not work',
  ]);
});

test('--oidc-* flags: upstream names, defaults and value syntax; issuer and client ID together; never with --authentication-config', () => {
  const o = parseFlags([
    '--oidc-issuer-url=https://login.example.com',
    '--oidc-client-id=core',
    '--oidc-ca-file=/etc/oidc-ca.crt',
    '--oidc-username-claim=email',
    '--oidc-groups-claim=groups',
    '--oidc-groups-prefix=oidc:',
    '--oidc-signing-algs=RS256,ES256',
    '--oidc-signing-algs=PS256',
    '--oidc-required-claim=hd=example.com',
    '--oidc-required-claim', 'teams=a,b',
  ]);
  assert.deepEqual(o.oidc, {
    issuerURL: 'https://login.example.com', clientID: 'core', caFile: '/etc/oidc-ca.crt', usernameClaim: 'email', usernamePrefix: '',
    groupsClaim: 'groups', groupsPrefix: 'oidc:', signingAlgs: ['RS256', 'ES256', 'PS256'], requiredClaims: { hd: 'example.com', teams: 'a,b' }, flagsSet: true,
  });
  const reg = flagRegistry();
  assert.deepEqual([reg.get('oidc-required-claim')?.type, reg.get('oidc-required-claim')?.value, reg.get('oidc-required-claim')?.default], ['mapStringString', 'hd=example.com,teams=a,b', '']);
  assert.deepEqual([reg.get('oidc-signing-algs')?.default, reg.get('oidc-signing-algs')?.value], ['[RS256]', '[RS256,ES256,PS256]']);
  assert.deepEqual([reg.get('oidc-username-claim')?.default, reg.get('oidc-issuer-url')?.section], ['sub', 'Authentication']);
  fails(['--oidc-required-claim=hd'], 'invalid argument "hd" for "--oidc-required-claim" flag: malformed pair, expect string=string');
  fails(['--oidc-issuer-url=https://login.example.com'], 'oidc-issuer-url and oidc-client-id must be specified together when any oidc-* flags are set');
  // Any oidc flag counts as set, even at its default value, as upstream's tracker.
  fails(['--oidc-username-claim=sub'], 'oidc-issuer-url and oidc-client-id must be specified together when any oidc-* flags are set');
  fails(['--authentication-config=/etc/authn.yaml', '--oidc-issuer-url=https://a.example', '--oidc-client-id=c'], 'authentication-config file and oidc-* flags are mutually exclusive');
  fails(['--authentication-config=/etc/authn.yaml', '--oidc-signing-algs=RS256'], 'authentication-config file and oidc-* flags are mutually exclusive');
  assert.equal(parseFlags(['--authentication-config=/etc/authn.yaml']).oidc.flagsSet, false);
});

test('etcd flags: upstream names, defaults and checks; start-up errors name the flag', () => {
  const o = parseFlags([
    '--storage-backend=etcd3', '--etcd-servers=http://127.0.0.1:2379,https://10.0.0.2:2379', '--etcd-prefix=/kube',
    '--etcd-servers-overrides=events.cluster.io/events#http://127.0.0.1:22379;http://127.0.0.1:22380,/events#http://127.0.0.1:22379',
    '--etcd-compaction-interval=1m', '--lease-reuse-duration-seconds=30', '--etcd-healthcheck-timeout=5s',
  ]);
  assert.equal(o.storageBackend, 'etcd3');
  assert.deepEqual(o.etcd.servers, ['http://127.0.0.1:2379', 'https://10.0.0.2:2379']);
  assert.equal(o.etcd.prefix, '/kube');
  assert.deepEqual(o.etcd.serversOverrides, [
    { group: 'events.cluster.io', resource: 'events', servers: ['http://127.0.0.1:22379', 'http://127.0.0.1:22380'] },
    { group: '', resource: 'events', servers: ['http://127.0.0.1:22379'] },
  ]);
  assert.equal(o.etcd.compactionIntervalMs, 60_000);
  assert.equal(o.etcd.leaseReuseDurationSeconds, 30);
  assert.equal(o.etcd.healthcheckTimeoutMs, 5_000);
  assert.equal(flagRegistry().get('etcd-compaction-interval')?.default, '5m0s');
  assert.equal(flagRegistry().get('etcd-servers')?.value, '[http://127.0.0.1:2379,https://10.0.0.2:2379]');
  fails(['--storage-backend=etcd3'], '--etcd-servers must be specified');
  fails(['--storage-backend=etcd3', '--etcd-servers=127.0.0.1:2379'], '--etcd-servers: invalid etcd server URL "127.0.0.1:2379": expected http://host:port or https://host:port');
  const bad = '--etcd-servers-overrides invalid, must be of format: group/resource#servers, where servers are URLs, semicolon separated';
  fails(['--etcd-servers-overrides=events#http://a:1'], bad);
  fails(['--etcd-servers-overrides=a/b#'], bad);
  fails(['--etcd-servers-overrides=a/b#http://a:1#x'], bad);
  fails(['--etcd-certfile=c.pem'], '--etcd-certfile and --etcd-keyfile must be specified together');
  fails(['--etcd-compaction-interval=-1s'], '--etcd-compaction-interval can not be negative value');
  fails(['--lease-reuse-duration-seconds=-1'], '--lease-reuse-duration-seconds can not be negative value');
});

test('admission flags: comma lists checked against the registered plugins, with upstream\'s texts', () => {
  const o = parseFlags(['--enable-admission-plugins=EventRateLimit', '--admission-control-config-file=/etc/admission.yaml']);
  assert.deepEqual(o.enableAdmissionPlugins, ['EventRateLimit']);
  assert.deepEqual(o.disableAdmissionPlugins, []);
  assert.equal(o.admissionControlConfigFile, '/etc/admission.yaml');
  assert.throws(() => parseFlags(['--enable-admission-plugins=NamespaceLifecycle,EventRateLimit']), { message: 'enable-admission-plugins plugin "NamespaceLifecycle" is unknown' });
  assert.throws(() => parseFlags(['--enable-admission-plugins=EventRateLimit', '--disable-admission-plugins=EventRateLimit,AlwaysDeny']), {
    message: '[disable-admission-plugins plugin "AlwaysDeny" is unknown, [EventRateLimit] in enable-admission-plugins and disable-admission-plugins overlapped]',
  });
  assert.match(usage(), /--enable-admission-plugins strings +admission plugins that should be enabled in addition to default enabled ones \(\)\. Comma-delimited list of admission plugins: EventRateLimit\./);
});
