/**
 * The core-apiserver command line: kube-apiserver's flag names, defaults, help texts and validation messages,
 * plus our storage flags. `parseFlags` returns typed options; `flagRegistry` keeps every flag's name, type,
 * default, help and current value for `--help` and the /flagz page.
 */
import { goQuote } from '../util/goquote.ts';
import { goParseBool } from '../apimachinery/strconv.ts';
import { featureGates, formatGates, validateGate } from '../features.ts';
import { validateDisabledMetrics, validateShowHiddenMetricsForVersion } from '../metrics/registry.ts';
import { formatStringToString, parseStringToString, readAllowListManifest, validateAllowListMapping } from '../metrics/allow-list.ts';
import { validateTracingConfigFileFlag } from '../config/tracing.ts';
import { versionInfo } from '../version.ts';
import { readGoCSV } from '../util/gocsv.ts';
import { parseEndpoint } from '../storage/etcd3/endpoint.ts';
import { defaultEnabledPlugins, registeredPlugins, validateAdmissionFlags } from '../admission/plugins.ts';
import { FlagError, FlagSet } from './flagset.ts';
import type { Flag } from './flagset.ts';
import { type AuthorizationOptions, authorizationOptions, declareAuthorizationFlags, validateAuthorizationFlags } from './authorization-flags.ts';

export { FlagError } from './flagset.ts';

export const COMMAND = 'core-apiserver';

/** Typed result of parsing the command line. Durations are milliseconds. */
export interface ServerOptions {
  dataDir: string;
  bindAddress: string;
  /** 0 means: pick a free port (and log it). */
  securePort: number;
  tlsCertFile: string;
  tlsPrivateKeyFile: string;
  clientCaFile: string;
  /** `--kubelet-*`: how the node proxy reaches node agents ('' files: the generated PKI's CA and admin certificate). */
  kubelet: { clientCertificate: string; clientKey: string; certificateAuthority: string; preferredAddressTypes: string[] };
  /** kube-controller-manager's `--cluster-signing-*`: the CA the CSR signer signs with ('' files: the generated CA). */
  clusterSigning: { certFile: string; keyFile: string; durationMs: number };
  /** `--authentication-config`: an AuthenticationConfiguration file ('' = none). */
  authenticationConfig: string;
  /** `--anonymous-auth` (default true). */
  anonymousAuth: boolean;
  /** Whether `--anonymous-auth` was given (an AuthenticationConfiguration with `anonymous` then refuses to start). */
  anonymousAuthSet: boolean;
  /** `--authorization-mode`, `--authorization-webhook-*`, `--authorization-config` (authorization-flags.ts). */
  authorization: AuthorizationOptions;
  /** `--token-auth-file`: '' for none. */
  tokenAuthFile: string;
  /** The legacy `--oidc-*` flags: one JWT issuer, built as the equivalent AuthenticationConfiguration entry. */
  oidc: OIDCFlags;
  /** The `--requestheader-*` flags; the front-proxy authenticator exists only with `clientCaFile` set. */
  requestHeader: {
    clientCaFile: string;
    allowedNames: string[];
    usernameHeaders: string[];
    uidHeaders: string[];
    groupHeaders: string[];
    extraHeaderPrefixes: string[];
  };
  eventTtlMs: number;
  storageBackend: 'sqlite' | 'etcd3';
  /** The etcd flags (upstream's EtcdOptions); used with `storageBackend: 'etcd3'`. Durations in ms. */
  etcd: EtcdOptions;
  sqliteSynchronous: 'NORMAL' | 'FULL';
  shutdownDelayMs: number;
  maxRequestsInflight: number;
  maxMutatingRequestsInflight: number;
  minRequestTimeoutSeconds: number;
  requestTimeoutMs: number;
  verbosity: number;
  /** `--show-hidden-metrics-for-version`: '' or the previous minor (`1.35`). */
  showHiddenMetricsForVersion: string;
  /** `--disabled-metrics`. */
  disabledMetrics: string[];
  /** `--allow-metric-labels`: `metric,label` → `v1,v2`. */
  allowMetricLabels: Record<string, string>;
  /** `--allow-metric-labels-manifest`: the same mapping from a YAML file (the flag wins when given). */
  allowMetricLabelsManifest: string;
  /** `--tracing-config-file`: '' leaves tracing off. */
  tracingConfigFile: string;
  /** `--encryption-provider-config`: an EncryptionConfiguration file ('' = values stored as they are). */
  encryptionProviderConfig: string;
  /** `--encryption-provider-config-automatic-reload`: reload that file when it changes. */
  encryptionProviderConfigAutomaticReload: boolean;
  /** `--enable-admission-plugins`, `--disable-admission-plugins` (checked against the registered plugins). */
  enableAdmissionPlugins: string[];
  disableAdmissionPlugins: string[];
  /** `--admission-control-config-file`: an AdmissionConfiguration ('' = none). */
  admissionControlConfigFile: string;
  /** `--feature-gates` as given (gates set by name); the process-wide `featureGates` is set from it. */
  featureGates: Record<string, boolean>;
  /** `--help`/`-h` was given: print `usage()` and exit 0; nothing else was validated. */
  help: boolean;
  /** `--version` was given: print the version and exit 0; nothing else was validated. */
  version: boolean;
}

/** The `--oidc-*` flags' values (upstream OIDCAuthenticationOptions). */
export interface OIDCFlags {
  issuerURL: string;
  clientID: string;
  caFile: string;
  /** Default `sub`. */
  usernameClaim: string;
  /** '' lets upstream's rule pick the prefix; `-` means none (see authentication-oidc-flags.ts). */
  usernamePrefix: string;
  groupsClaim: string;
  groupsPrefix: string;
  /** Default `[RS256]`. */
  signingAlgs: string[];
  requiredClaims: Record<string, string>;
  /** Whether any `--oidc-*` flag was given, even at its default (upstream's FlagsSet). */
  flagsSet: boolean;
}

export interface EtcdServerOverride {
  group: string;
  resource: string;
  servers: string[];
}

export interface EtcdOptions {
  servers: string[];
  prefix: string;
  caFile: string;
  certFile: string;
  keyFile: string;
  serversOverrides: EtcdServerOverride[];
  compactionIntervalMs: number;
  countMetricPollPeriodMs: number;
  dbMetricPollIntervalMs: number;
  healthcheckTimeoutMs: number;
  readycheckTimeoutMs: number;
  leaseReuseDurationSeconds: number;
}

/** One flag as the registry reports it. `default` and `value` are pflag `Value.String()` texts. */
export interface FlagInfo {
  name: string;
  shorthand?: string;
  type: string;
  default: string;
  value: string;
  help: string;
  section: string;
  changed: boolean;
  classified: boolean;
}

const SECTIONS = ['Generic', 'Storage', 'Secure serving', 'Authentication', 'Authorization', 'Admission', 'Metrics', 'Misc', 'Logs', 'Traces', 'Global'];
const STORAGE_BACKENDS = ['sqlite', 'etcd3'];
const SQLITE_SYNCHRONOUS = ['NORMAL', 'FULL'];

/** Declares every flag on a fresh set; returns the set and typed handles to read values back. */
function newServerFlagSet() {
  const fs = new FlagSet(COMMAND);
  const generic = { section: 'Generic' };
  const storage = { section: 'Storage' };
  const serving = { section: 'Secure serving' };
  const authn = { section: 'Authentication' };
  const flags = {
    dataDir: fs.string('data-dir', './data', 'Directory holding the database and, unless --tls-cert-file is given, the generated certificates (pki/) and the admin kubeconfig.', generic),
    maxRequestsInflight: fs.int('max-requests-inflight', 400, 'The maximum number of non-mutating requests in flight at a given time. When the server exceeds this, it rejects requests. Zero for no limit.', generic),
    maxMutatingRequestsInflight: fs.int('max-mutating-requests-inflight', 200, 'The maximum number of mutating requests in flight at a given time. When the server exceeds this, it rejects requests. Zero for no limit.', generic),
    minRequestTimeout: fs.int('min-request-timeout', 1800, 'An optional field indicating the minimum number of seconds a handler must keep a request open before timing it out. Currently only honored by the watch request handler, which picks a randomized value above this number as the connection timeout, to spread out load.', generic),
    requestTimeout: fs.duration('request-timeout', 60_000, 'An optional field indicating the duration a handler must keep a request open before timing it out. This is the default request timeout for requests but may be overridden by flags such as --min-request-timeout for specific types of requests.', generic),
    shutdownDelay: fs.duration('shutdown-delay-duration', 0, 'Time to delay the termination. During that time the server keeps serving requests normally. The endpoints /healthz and /livez will return success, but /readyz immediately returns failure. Graceful termination starts after this delay has elapsed. This can be used to allow load balancer to stop sending traffic to this server.', generic),
    storageBackend: fs.string('storage-backend', 'sqlite', 'The storage backend for persistence. Options: \'sqlite\' (default, embedded in --data-dir), \'etcd3\' (the etcd cluster of --etcd-servers).', storage),
    encryptionProviderConfig: fs.string('encryption-provider-config', '', 'The file containing configuration for encryption providers to be used for storing secrets in etcd', storage),
    encryptionProviderConfigAutomaticReload: fs.bool('encryption-provider-config-automatic-reload', false, 'Determines if the file set by --encryption-provider-config should be automatically reloaded if the disk contents change. Setting this to true disables the ability to uniquely identify distinct KMS plugins via the API server healthz endpoints.', storage),
    etcdServers: stringSlice(fs, 'etcd-servers', 'List of etcd servers to connect with (scheme://ip:port), comma separated.', 'Storage'),
    etcdServersOverrides: stringSlice(fs, 'etcd-servers-overrides', 'Per-resource etcd servers overrides, comma separated. The individual override format: group/resource#servers, where servers are URLs, semicolon separated. Note that this applies only to resources compiled into this server binary. ', 'Storage'),
    etcdPrefix: fs.string('etcd-prefix', '/registry', 'The prefix to prepend to all resource paths in etcd.', storage),
    etcdKeyfile: fs.string('etcd-keyfile', '', 'SSL key file used to secure etcd communication.', storage),
    etcdCertfile: fs.string('etcd-certfile', '', 'SSL certification file used to secure etcd communication.', storage),
    etcdCafile: fs.string('etcd-cafile', '', 'SSL Certificate Authority file used to secure etcd communication.', storage),
    etcdCompactionInterval: fs.duration('etcd-compaction-interval', 300_000, 'The interval of compaction requests. If 0, the compaction request from apiserver is disabled.', storage),
    etcdCountMetricPollPeriod: fs.duration('etcd-count-metric-poll-period', 60_000, 'Frequency of polling etcd for number of resources per type. 0 disables the metric collection.', storage),
    etcdDbMetricPollInterval: fs.duration('etcd-db-metric-poll-interval', 30_000, 'The interval of requests to poll etcd and update metric. 0 disables the metric collection', storage),
    etcdHealthcheckTimeout: fs.duration('etcd-healthcheck-timeout', 2_000, 'The timeout to use when checking etcd health.', storage),
    etcdReadycheckTimeout: fs.duration('etcd-readycheck-timeout', 2_000, 'The timeout to use when checking etcd readiness', storage),
    leaseReuseDurationSeconds: fs.int('lease-reuse-duration-seconds', 60, 'The time in seconds that each lease is reused. A lower value could avoid large number of objects reusing the same lease. Notice that a too small value may cause performance problems at storage layer.', storage),
    sqliteSynchronous: fs.string('sqlite-synchronous', 'NORMAL', 'SQLite synchronous mode of the database in --data-dir. NORMAL: a committed write survives a crash of the process but may be lost on power failure. FULL: every commit is synced to disk. Options: NORMAL, FULL.', storage),
    bindAddress: fs.ip('bind-address', '127.0.0.1', 'The IP address on which to listen for the --secure-port port. The associated interface(s) must be reachable by the rest of the cluster, and by CLI/web clients. If an unspecified address (0.0.0.0 or ::) is given, all interfaces and IP address families will be used.', serving),
    securePort: fs.int('secure-port', 6443, 'The port on which to serve HTTPS with authentication and authorization. 0 picks a free port, which is logged.', serving),
    tlsCertFile: fs.string('tls-cert-file', '', 'File containing the default x509 Certificate for HTTPS. (CA cert, if any, concatenated after server cert). If --tls-cert-file and --tls-private-key-file are not provided, a certificate authority, a serving certificate and an admin client certificate are generated once into <data-dir>/pki.', serving),
    tlsPrivateKeyFile: fs.string('tls-private-key-file', '', 'File containing the default x509 private key matching --tls-cert-file.', serving),
    authenticationConfig: fs.string('authentication-config', '', 'File with Authentication Configuration to configure the JWT Token authenticator or the anonymous authenticator. This feature is mutually exclusive with the oidc-* flags.', authn),
    anonymousAuth: fs.bool('anonymous-auth', true, 'Enables anonymous requests to the secure port of the API server. Requests that are not rejected by another authentication method are treated as anonymous requests. Anonymous requests have a username of system:anonymous, and a group name of system:unauthenticated.', authn),
    clientCaFile: fs.string('client-ca-file', '', 'If set, any request presenting a client certificate signed by one of the authorities in the client-ca-file is authenticated with an identity corresponding to the CommonName of the client certificate.', authn),
    requestheaderAllowedNames: stringSlice(fs, 'requestheader-allowed-names', 'List of client certificate common names to allow to provide usernames in headers specified by --requestheader-username-headers. If empty, any client certificate validated by the authorities in --requestheader-client-ca-file is allowed.'),
    requestheaderClientCaFile: fs.string('requestheader-client-ca-file', '', 'Root certificate bundle to use to verify client certificates on incoming requests before trusting usernames in headers specified by --requestheader-username-headers. WARNING: generally do not depend on authorization being already done for incoming requests.', authn),
    requestheaderExtraHeadersPrefix: stringSlice(fs, 'requestheader-extra-headers-prefix', 'List of request header prefixes to inspect. X-Remote-Extra- is suggested.'),
    requestheaderGroupHeaders: stringSlice(fs, 'requestheader-group-headers', 'List of request headers to inspect for groups. X-Remote-Group is suggested.'),
    requestheaderUidHeaders: stringSlice(fs, 'requestheader-uid-headers', 'List of request headers to inspect for UIDs. X-Remote-Uid is suggested. Requires the RemoteRequestHeaderUID feature to be enabled.'),
    requestheaderUsernameHeaders: stringSlice(fs, 'requestheader-username-headers', 'List of request headers to inspect for usernames. X-Remote-User is common.'),
    authorization: declareAuthorizationFlags(fs),
    enableAdmissionPlugins: stringSlice(fs, 'enable-admission-plugins', `admission plugins that should be enabled in addition to default enabled ones (${defaultEnabledPlugins().join(', ')}). Comma-delimited list of admission plugins: ${registeredPlugins().join(', ')}. The order of plugins in this flag does not matter.`, 'Admission'),
    disableAdmissionPlugins: stringSlice(fs, 'disable-admission-plugins', `admission plugins that should be disabled although they are in the default enabled plugins list (${defaultEnabledPlugins().join(', ')}). Comma-delimited list of admission plugins: ${registeredPlugins().join(', ')}. The order of plugins in this flag does not matter.`, 'Admission'),
    admissionControlConfigFile: fs.string('admission-control-config-file', '', 'File with admission control configuration.', { section: 'Admission' }),
    tokenAuthFile: fs.string('token-auth-file', '', 'If set, the file that will be used to secure the secure port of the API server via token authentication.', authn),
    // Upstream's legacy OIDC flags, names, defaults and help as kube-apiserver's.
    oidcIssuerURL: fs.string('oidc-issuer-url', '', 'The URL of the OpenID issuer, only HTTPS scheme will be accepted. If set, it will be used to verify the OIDC JSON Web Token (JWT).', authn),
    oidcClientID: fs.string('oidc-client-id', '', 'The client ID for the OpenID Connect client, must be set if oidc-issuer-url is set.', authn),
    oidcCAFile: fs.string('oidc-ca-file', '', "If set, the OpenID server's certificate will be verified by one of the authorities in the oidc-ca-file, otherwise the host's root CA set will be used.", authn),
    oidcUsernameClaim: fs.string('oidc-username-claim', 'sub', "The OpenID claim to use as the user name. Note that claims other than the default ('sub') is not guaranteed to be unique and immutable. This flag is experimental, please see the authentication documentation for further details.", authn),
    oidcUsernamePrefix: fs.string('oidc-username-prefix', '', "If provided, all usernames will be prefixed with this value. If not provided, username claims other than 'email' are prefixed by the issuer URL to avoid clashes. To skip any prefixing, provide the value '-'.", authn),
    oidcGroupsClaim: fs.string('oidc-groups-claim', '', 'If provided, the name of a custom OpenID Connect claim for specifying user groups. The claim value is expected to be a string or array of strings. This flag is experimental, please see the authentication documentation for further details.', authn),
    oidcGroupsPrefix: fs.string('oidc-groups-prefix', '', 'If provided, all groups will be prefixed with this value to prevent conflicts with other authentication strategies.', authn),
    oidcSigningAlgs: stringSlice(fs, 'oidc-signing-algs', "Comma-separated list of allowed JOSE asymmetric signing algorithms. JWTs with a supported 'alg' header values are: RS256, RS384, RS512, ES256, ES384, ES512, PS256, PS384, PS512. Values are defined by RFC 7518 https://tools.ietf.org/html/rfc7518#section-3.1.", 'Authentication', ['RS256']),
    oidcRequiredClaim: fs.add<Record<string, string>>({
      name: 'oidc-required-claim', type: 'mapStringString', default: {}, ...authn,
      help: 'A key=value pair that describes a required claim in the ID Token. If set, the claim is verified to be present in the ID Token with a matching value. Repeat this flag to specify multiple claims.',
      parse: parseMapStringStringNoSplit,
      // cliflag.MapStringString.String(): `k=v` pairs sorted, joined by commas.
      format: (m) => Object.entries(m).map(([k, v]) => `${k}=${v}`).sort().join(','),
    }),
    featureGates: fs.add<Record<string, boolean>>({
      name: 'feature-gates', type: 'mapStringBool', default: {}, help: featureGatesHelp(), ...generic,
      parse: parseFeatureGates, format: formatGates,
    }),
    showHiddenMetricsForVersion: fs.string('show-hidden-metrics-for-version', '', "The previous version for which you want to show hidden metrics. Only the previous minor version is meaningful, other values will not be allowed. The format is <major>.<minor>, e.g.: '1.16'. The purpose of this format is make sure you have the opportunity to notice if the next release hides additional metrics, rather than being surprised when they are permanently removed in the release after that.", { section: 'Metrics' }),
    disabledMetrics: fs.add<string[]>({
      name: 'disabled-metrics', type: 'strings', default: [], section: 'Metrics',
      help: 'This flag provides an escape hatch for misbehaving metrics. You must provide the fully qualified metric name in order to disable it. Disclaimer: disabling metrics is higher in precedence than showing hidden metrics.',
      // pflag's stringSlice: comma-separated, and a repeated flag appends.
      parse: (text, current) => (text === '' ? current : [...current, ...text.split(',')]),
      format: (v) => `[${v.join(',')}]`,
    }),
    allowMetricLabels: fs.add<Record<string, string>>({
      name: 'allow-metric-labels', type: 'stringToString', default: {}, section: 'Metrics',
      help: "The map from metric-label to value allow-list of this label. The key's format is <MetricName>,<LabelName>. The value's format is <allowed_value>,<allowed_value>...e.g. metric1,label1='v1,v2,v3', metric1,label2='v1,v2,v3' metric2,label1='v1,v2,v3'.",
      parse: parseStringToString,
      format: formatStringToString,
    }),
    allowMetricLabelsManifest: fs.string('allow-metric-labels-manifest', '', 'The path to the manifest file that contains the allow-list mapping. The format of the file is the same as the flag --allow-metric-labels. Note that the flag --allow-metric-labels will override the manifest file.', { section: 'Metrics' }),
    kubeletClientCertificate: fs.string('kubelet-client-certificate', '', 'Path to a client cert file for TLS.', { section: 'Misc' }),
    kubeletClientKey: fs.string('kubelet-client-key', '', 'Path to a client key file for TLS.', { section: 'Misc' }),
    kubeletCertificateAuthority: fs.string('kubelet-certificate-authority', '', 'Path to a cert file for the certificate authority.', { section: 'Misc' }),
    kubeletPreferredAddressTypes: stringSlice(fs, 'kubelet-preferred-address-types', 'List of the preferred NodeAddressTypes to use for kubelet connections.', 'Misc', ['Hostname', 'InternalDNS', 'InternalIP', 'ExternalDNS', 'ExternalIP']),
    clusterSigningCertFile: fs.string('cluster-signing-cert-file', '', 'Filename containing a PEM-encoded X509 CA certificate used to issue cluster-scoped certificates (kube-controller-manager\'s flag; default: the generated cluster CA).', { section: 'Misc' }),
    clusterSigningKeyFile: fs.string('cluster-signing-key-file', '', 'Filename containing a PEM-encoded RSA or ECDSA private key used to sign cluster-scoped certificates (kube-controller-manager\'s flag; here an ECDSA P-256 key; default: the generated cluster CA\'s key).', { section: 'Misc' }),
    clusterSigningDuration: fs.duration('cluster-signing-duration', 365 * 86_400_000, 'The max length of duration signed certificates will be given. Individual CSRs may request shorter certs by setting spec.expirationSeconds.', { section: 'Misc' }),
    eventTtl: fs.duration('event-ttl', 3_600_000, 'Amount of time to retain events.', { section: 'Misc' }),
    verbosity: fs.level('v', 0, 'number for the log level verbosity', { section: 'Logs', shorthand: 'v' }),
    tracingConfigFile: fs.string('tracing-config-file', '', 'File with apiserver tracing configuration.', { section: 'Traces' }),
    help: fs.bool('help', false, `help for ${COMMAND}`, { section: 'Global', shorthand: 'h' }),
    version: fs.bool('version', false, 'Print version information and quit', { section: 'Global' }),
  };
  return { fs, flags };
}

let lastParsed: FlagSet = newServerFlagSet().fs;

/**
 * Parses the command line (process.argv.slice(2)). Throws FlagError with a one-line message for an unknown
 * flag, a malformed value, a stray argument or an invalid combination.
 */
export function parseFlags(argv: readonly string[]): ServerOptions {
  const { fs, flags } = newServerFlagSet();
  const positional = fs.parse(argv);
  if (positional.some((a) => a.length > 0)) {
    throw new FlagError(`${goQuote(COMMAND)} does not take any arguments, got [${positional.map(goQuote).join(' ')}]`);
  }
  const options: ServerOptions = {
    dataDir: flags.dataDir.value,
    bindAddress: flags.bindAddress.value,
    securePort: flags.securePort.value,
    tlsCertFile: flags.tlsCertFile.value,
    tlsPrivateKeyFile: flags.tlsPrivateKeyFile.value,
    clientCaFile: flags.clientCaFile.value,
    kubelet: {
      clientCertificate: flags.kubeletClientCertificate.value,
      clientKey: flags.kubeletClientKey.value,
      certificateAuthority: flags.kubeletCertificateAuthority.value,
      preferredAddressTypes: [...flags.kubeletPreferredAddressTypes.value],
    },
    clusterSigning: { certFile: flags.clusterSigningCertFile.value, keyFile: flags.clusterSigningKeyFile.value, durationMs: flags.clusterSigningDuration.value },
    authenticationConfig: flags.authenticationConfig.value,
    anonymousAuth: flags.anonymousAuth.value,
    anonymousAuthSet: flags.anonymousAuth.changed,
    tokenAuthFile: flags.tokenAuthFile.value,
    oidc: {
      issuerURL: flags.oidcIssuerURL.value,
      clientID: flags.oidcClientID.value,
      caFile: flags.oidcCAFile.value,
      usernameClaim: flags.oidcUsernameClaim.value,
      usernamePrefix: flags.oidcUsernamePrefix.value,
      groupsClaim: flags.oidcGroupsClaim.value,
      groupsPrefix: flags.oidcGroupsPrefix.value,
      signingAlgs: [...flags.oidcSigningAlgs.value],
      requiredClaims: { ...flags.oidcRequiredClaim.value },
      flagsSet: oidcFlags(flags).some((f) => f.changed),
    },
    authorization: authorizationOptions(flags.authorization),
    requestHeader: {
      clientCaFile: flags.requestheaderClientCaFile.value,
      allowedNames: [...flags.requestheaderAllowedNames.value],
      usernameHeaders: [...flags.requestheaderUsernameHeaders.value],
      uidHeaders: [...flags.requestheaderUidHeaders.value],
      groupHeaders: [...flags.requestheaderGroupHeaders.value],
      extraHeaderPrefixes: [...flags.requestheaderExtraHeadersPrefix.value],
    },
    eventTtlMs: flags.eventTtl.value,
    storageBackend: flags.storageBackend.value as ServerOptions['storageBackend'],
    etcd: {
      servers: [...flags.etcdServers.value],
      prefix: flags.etcdPrefix.value,
      caFile: flags.etcdCafile.value,
      certFile: flags.etcdCertfile.value,
      keyFile: flags.etcdKeyfile.value,
      serversOverrides: parseEtcdServersOverrides(flags.etcdServersOverrides.value) ?? [],
      compactionIntervalMs: flags.etcdCompactionInterval.value,
      countMetricPollPeriodMs: flags.etcdCountMetricPollPeriod.value,
      dbMetricPollIntervalMs: flags.etcdDbMetricPollInterval.value,
      healthcheckTimeoutMs: flags.etcdHealthcheckTimeout.value,
      readycheckTimeoutMs: flags.etcdReadycheckTimeout.value,
      leaseReuseDurationSeconds: flags.leaseReuseDurationSeconds.value,
    },
    sqliteSynchronous: flags.sqliteSynchronous.value.toUpperCase() as ServerOptions['sqliteSynchronous'],
    shutdownDelayMs: flags.shutdownDelay.value,
    maxRequestsInflight: flags.maxRequestsInflight.value,
    maxMutatingRequestsInflight: flags.maxMutatingRequestsInflight.value,
    minRequestTimeoutSeconds: flags.minRequestTimeout.value,
    requestTimeoutMs: flags.requestTimeout.value,
    verbosity: flags.verbosity.value,
    tracingConfigFile: flags.tracingConfigFile.value,
    encryptionProviderConfig: flags.encryptionProviderConfig.value,
    encryptionProviderConfigAutomaticReload: flags.encryptionProviderConfigAutomaticReload.value,
    enableAdmissionPlugins: [...flags.enableAdmissionPlugins.value],
    disableAdmissionPlugins: [...flags.disableAdmissionPlugins.value],
    admissionControlConfigFile: flags.admissionControlConfigFile.value,
    featureGates: { ...flags.featureGates.value },
    showHiddenMetricsForVersion: flags.showHiddenMetricsForVersion.value,
    disabledMetrics: [...flags.disabledMetrics.value],
    allowMetricLabels: { ...flags.allowMetricLabels.value },
    allowMetricLabelsManifest: flags.allowMetricLabelsManifest.value,
    help: flags.help.value,
    version: flags.version.value,
  };
  // Like cobra, --help and --version win over validation of the other flags.
  if (!options.help && !options.version) validate(flags);
  featureGates.set(options.featureGates);
  lastParsed = fs;
  return options;
}

/**
 * One `--feature-gates` value merged into the gates given so far (repeated use accumulates), with the checks and
 * messages of component-base featureGate.Set: `A=true,B=false`, blanks around names and values trimmed.
 */
export function parseFeatureGates(text: string, current: Record<string, boolean>): Record<string, boolean> {
  const out = { ...current };
  for (const pair of text.split(',')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const name = (eq < 0 ? pair : pair.slice(0, eq)).trim();
    if (eq < 0) throw new Error(`missing bool value for ${name}`);
    const value = pair.slice(eq + 1).trim();
    let on: boolean;
    try {
      on = goParseBool(value);
    } catch (e) {
      throw new Error(`invalid value of ${name}=${value}, err: ${(e as Error).message}`);
    }
    out[name] = on;
  }
  for (const [name, on] of Object.entries(out)) validateGate(name, on);
  return out;
}

/** featureGate.AddFlag's help: the syntax, then one `Name=true|false (STAGE - default=x)` line per gate. */
function featureGatesHelp(): string {
  const gates = featureGates
    .known()
    .filter((f) => f.stage !== '' && f.stage !== 'DEPRECATED')
    .map((f) => `${f.name}=true|false (${f.stage} - default=${f.default})`);
  return `A set of key=value pairs that describe feature gates for alpha/experimental features. Options are:\n${gates.join('\n')}`;
}

/** Post-parse checks (kube-apiserver's Validate), reported as its utilerrors aggregate: one error, or `[a, b]`. */
function validate(flags: ReturnType<typeof newServerFlagSet>['flags']): void {
  const errs: string[] = [];
  const oneOf = (flag: Flag<string>, allowed: string[], value = flag.value) => {
    if (!allowed.includes(value)) {
      errs.push(`--${flag.spec.name}: unsupported value ${goQuote(flag.value)} (supported: ${allowed.join(', ')})`);
    }
  };
  oneOf(flags.storageBackend, STORAGE_BACKENDS);
  errs.push(...validateEtcd(flags));
  oneOf(flags.sqliteSynchronous, SQLITE_SYNCHRONOUS, flags.sqliteSynchronous.value.toUpperCase());
  const port = flags.securePort.value;
  if (port < 0 || port > 65535) errs.push(`--secure-port ${port} must be between 0 and 65535, inclusive. 0 picks a free port`);
  if ((flags.tlsCertFile.value === '') !== (flags.tlsPrivateKeyFile.value === '')) {
    errs.push('--tls-cert-file and --tls-private-key-file must be specified together');
  }
  for (const f of [flags.maxRequestsInflight, flags.maxMutatingRequestsInflight, flags.minRequestTimeout, flags.requestTimeout, flags.shutdownDelay, flags.leaseReuseDurationSeconds]) {
    if (f.value < 0) errs.push(`--${f.spec.name} can not be negative value`);
  }
  if (flags.eventTtl.value <= 0) errs.push('--event-ttl must be greater than 0s');
  if (Boolean(flags.clusterSigningCertFile.value) !== Boolean(flags.clusterSigningKeyFile.value)) errs.push('--cluster-signing-cert-file and --cluster-signing-key-file must be given together');
  if (flags.clusterSigningDuration.value <= 0) errs.push('--cluster-signing-duration must be greater than 0s');
  if (flags.verbosity.value < 0) errs.push('-v, --v must not be negative');
  const hidden = validateShowHiddenMetricsForVersion(flags.showHiddenMetricsForVersion.value, versionInfo.gitVersion);
  if (hidden) errs.push(hidden);
  const disabled = validateDisabledMetrics(flags.disabledMetrics.value);
  if (disabled) errs.push(disabled);
  errs.push(...validateRequestHeader(flags));
  errs.push(...validateOIDC(flags));
  errs.push(...validateAuthorizationFlags(flags.authorization));
  const allow = validateAllowListMapping(flags.allowMetricLabels.value);
  if (allow) errs.push(allow);
  if (flags.allowMetricLabelsManifest.value !== '') {
    try {
      readAllowListManifest(flags.allowMetricLabelsManifest.value);
    } catch (e) {
      errs.push((e as Error).message);
    }
  }
  const tracing = validateTracingConfigFileFlag(flags.tracingConfigFile.value);
  if (tracing) errs.push(tracing);
  // Upstream's EtcdOptions.Validate text.
  if (flags.encryptionProviderConfigAutomaticReload.value && flags.encryptionProviderConfig.value === '') {
    errs.push('--encryption-provider-config-automatic-reload must be set with --encryption-provider-config');
  }
  errs.push(...validateAdmissionFlags(flags.enableAdmissionPlugins.value, flags.disableAdmissionPlugins.value));
  if (errs.length === 1) throw new FlagError(errs[0]);
  if (errs.length > 1) throw new FlagError(`[${errs.join(', ')}]`);
}

/**
 * pflag's StringSlice: the value is read as one CSV record (so an element may be quoted to hold a comma); the first
 * use replaces the default, a repeated one appends. Printed as `[a,b]`.
 */
function stringSlice(fs: FlagSet, name: string, help: string, section = 'Authentication', def: string[] = []): Flag<string[]> {
  let given = false;
  return fs.add<string[]>({
    name, type: 'strings', default: def, help, section,
    parse: (text, current) => {
      const values = text === '' ? [] : (readGoCSV(text)[0] ?? []);
      const out = given ? [...current, ...values] : values;
      given = true;
      return out;
    },
    format: (v) => `[${v.join(',')}]`,
  });
}

const ETCD_OVERRIDES_INVALID = '--etcd-servers-overrides invalid, must be of format: group/resource#servers, where servers are URLs, semicolon separated';

/** upstream's ParseEtcdServersOverrides: `group/resource#url;url`, core resources with an empty group (`/events#…`). */
export function parseEtcdServersOverrides(values: readonly string[]): EtcdServerOverride[] | undefined {
  const out: EtcdServerOverride[] = [];
  for (const v of values) {
    const tokens = v.split('#');
    if (tokens.length !== 2) return undefined;
    const gr = tokens[0]!.split('/');
    if (gr.length !== 2) return undefined;
    const servers = tokens[1]!.split(';');
    if (servers.some((s) => s.length === 0)) return undefined;
    out.push({ group: gr[0]!, resource: gr[1]!, servers });
  }
  return out;
}

/** EtcdOptions.Validate, plus a check of each URL (a bad one would otherwise only fail at the first request). */
function validateEtcd(flags: ReturnType<typeof newServerFlagSet>['flags']): string[] {
  const errs: string[] = [];
  const checkUrl = (flag: string, url: string) => {
    try {
      parseEndpoint(url);
    } catch (e) {
      errs.push(`--${flag}: ${(e as Error).message}`);
    }
  };
  if (flags.storageBackend.value === 'etcd3') {
    if (flags.etcdServers.value.length === 0) errs.push('--etcd-servers must be specified');
    for (const u of flags.etcdServers.value) checkUrl('etcd-servers', u);
  }
  const overrides = parseEtcdServersOverrides(flags.etcdServersOverrides.value);
  if (!overrides) errs.push(ETCD_OVERRIDES_INVALID);
  else for (const o of overrides) for (const u of o.servers) checkUrl('etcd-servers-overrides', u);
  if ((flags.etcdCertfile.value === '') !== (flags.etcdKeyfile.value === '')) errs.push('--etcd-certfile and --etcd-keyfile must be specified together');
  for (const f of [flags.etcdCompactionInterval, flags.etcdCountMetricPollPeriod, flags.etcdDbMetricPollInterval, flags.etcdHealthcheckTimeout, flags.etcdReadycheckTimeout]) {
    if (f.value < 0) errs.push(`--${f.spec.name} can not be negative value`);
  }
  return errs;
}

/** RequestHeaderAuthenticationOptions.Validate (RemoteRequestHeaderUID is on, as it is by default since 1.33). */
function validateRequestHeader(flags: ReturnType<typeof newServerFlagSet>['flags']): string[] {
  const errs: string[] = [];
  for (const f of [flags.requestheaderUsernameHeaders, flags.requestheaderGroupHeaders, flags.requestheaderExtraHeadersPrefix, flags.requestheaderAllowedNames, flags.requestheaderUidHeaders]) {
    if (f.value.some((h) => h.trim() === '')) errs.push(`empty value in ${goQuote(f.spec.name)}`);
  }
  const uids = flags.requestheaderUidHeaders.value;
  if (uids.length > 0 && !hasFolded(uids, 'X-Remote-Uid')) {
    errs.push('--requestheader-uid-headers is set without specifying the standard X-Remote-Uid header - API aggregation will not work');
  }
  return errs;
}

/** cliflag's MapStringString with NoSplit: one `key=value` per use (the value may hold commas), repeats add up. */
function parseMapStringStringNoSplit(text: string, current: Record<string, string>): Record<string, string> {
  const eq = text.indexOf('=');
  if (eq < 0) throw new Error('malformed pair, expect string=string');
  return { ...current, [text.slice(0, eq).trim()]: text.slice(eq + 1).trim() };
}

type Flags = ReturnType<typeof newServerFlagSet>['flags'];

function oidcFlags(flags: Flags): Flag<unknown>[] {
  return [flags.oidcIssuerURL, flags.oidcClientID, flags.oidcCAFile, flags.oidcUsernameClaim, flags.oidcUsernamePrefix, flags.oidcGroupsClaim, flags.oidcGroupsPrefix, flags.oidcSigningAlgs, flags.oidcRequiredClaim] as Flag<unknown>[];
}

/**
 * Upstream validateOIDCOptions: any `--oidc-*` flag needs both the issuer URL and the client ID, and none may be given
 * with `--authentication-config`. The rest (https, the signing algorithms, the CA) is checked at start-up, on the
 * AuthenticationConfiguration the flags stand for, with that validation's texts.
 */
function validateOIDC(flags: Flags): string[] {
  if (!oidcFlags(flags).some((f) => f.changed)) return [];
  if (flags.authenticationConfig.value !== '') return ['authentication-config file and oidc-* flags are mutually exclusive'];
  if (flags.oidcIssuerURL.value === '' || flags.oidcClientID.value === '') return ['oidc-issuer-url and oidc-client-id must be specified together when any oidc-* flags are set'];
  return [];
}

function hasFolded(list: readonly string[], want: string): boolean {
  return list.some((h) => h.toLowerCase() === want.toLowerCase());
}

/**
 * The warnings upstream logs at start for front-proxy headers that leave out the standard ones (the aggregation
 * layer sends exactly those).
 */
export function requestHeaderWarnings(o: ServerOptions['requestHeader']): string[] {
  const out: string[] = [];
  if (o.usernameHeaders.length > 0 && !hasFolded(o.usernameHeaders, 'X-Remote-User')) {
    out.push('--requestheader-username-headers is set without specifying the standard X-Remote-User header - API aggregation will not work');
  }
  if (o.groupHeaders.length > 0 && !hasFolded(o.groupHeaders, 'X-Remote-Group')) {
    out.push('--requestheader-group-headers is set without specifying the standard X-Remote-Group header - API aggregation will not work');
  }
  if (o.extraHeaderPrefixes.length > 0 && !hasFolded(o.extraHeaderPrefixes, 'X-Remote-Extra-')) {
    out.push('--requestheader-extra-headers-prefix is set without specifying the standard X-Remote-Extra- header prefix - API aggregation will not work');
  }
  return out;
}

/** The `--help` text: description, usage line and every flag grouped in kube-apiserver style sections. */
export function usage(): string {
  const { fs } = newServerFlagSet();
  return (
    'The core API server serves cluster events (events.cluster.io/v1) with the semantics of the Kubernetes\n' +
    'API server, storing them in an embedded SQLite database or in etcd.\n\n' +
    `Usage:\n  ${COMMAND} [flags]\n` +
    fs.sectionUsages(SECTIONS)
  );
}

/**
 * Every flag of the last successful `parseFlags` call (defaults before the first one), keyed by name in
 * name order. Values are pflag `Value.String()` texts, as /flagz shows them.
 */
export function flagRegistry(): Map<string, FlagInfo> {
  const out = new Map<string, FlagInfo>();
  for (const f of lastParsed.flags()) {
    const s = f.spec;
    out.set(s.name, {
      name: s.name,
      ...(s.shorthand ? { shorthand: s.shorthand } : {}),
      type: s.type || 'bool',
      default: s.format(s.default),
      value: s.format(f.value),
      help: s.help,
      section: s.section,
      changed: f.changed,
      classified: s.classified ?? false,
    });
  }
  return out;
}
