/**
 * core-apiserver: parse flags, prepare TLS and storage, build the resources and the server, run until SIGTERM.
 */
import { aggregateText } from '../apimachinery/field.ts';
import { anonymousFlagConflict } from '../config/authentication-reload.ts';
import { randomUUID } from 'node:crypto';
import { ReloadingJWTAuthenticator } from './authentication-config.ts';
import { oidcFlagsToAuthenticationConfiguration } from '../config/authentication-oidc-flags.ts';
import { compileAuthenticationConfiguration } from '../config/authentication.ts';
import { type JWTAuthenticators, newJWTAuthenticators } from '../auth/authenticator/jwt/jwt-authenticators.ts';

import { readAllowListManifest, toAllowList } from '../metrics/allow-list.ts';
import { registerProcessMetrics } from '../metrics/process.ts';
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { eventCodec, registerEvents } from '../registry/events/storage.ts';
import { CORE_REFERENCE_KINDS } from '../registry/core-events/resource.ts';
import { registerCoreEvents } from '../registry/core-events/storage.ts';
import { installAPIs } from '../server/apis.ts';
import { UnionAuthenticator } from '../auth/authenticator/union.ts';
import { GROUP_MASTERS } from '../auth/authenticator/user.ts';
import { X509Authenticator } from '../auth/authenticator/x509.ts';
import { AnonymousFallback } from '../auth/authenticator/anonymous.ts';
import { CertificateAnchors } from '../auth/authenticator/anchors.ts';
import type { Authenticator, AuthenticatorRequest } from '../auth/authenticator/interface.ts';
import { RequestHeaderAuthenticator, type RequestHeaderNames } from '../auth/authenticator/request-header.ts';
import { BearerTokenAuthenticator, type TokenAuthenticator, TokenUnion } from '../auth/authenticator/token.ts';
import { TokenFileAuthenticator } from '../auth/authenticator/token-file.ts';
import { CachedTokenAuthenticator } from '../auth/authenticator/token-cache.ts';
import { registerSelfSubjectReviews } from '../registry/selfsubjectreviews/storage.ts';
import { AuthenticationMetrics, JWTMetrics, TokenCacheMetrics } from '../server/authentication-metrics.ts';
import { PrivilegedGroupsAuthorizer } from '../auth/authorizer/privileged-groups.ts';
import { UnionAuthorizer } from '../auth/authorizer/union.ts';
import { ConfiguredAuthorizer } from './authorization.ts';
import { AuthorizationMetrics } from './authorization-metrics.ts';
import { registerAccessReviews } from '../registry/accessreviews/storage.ts';
import { registerTokenReviews } from '../registry/tokenreviews/storage.ts';
import { buildAdmissionChain } from './admission.ts';
import { AdmissionMetrics } from '../server/admission-metrics.ts';
import { GROUP as RBAC_GROUP } from '../apis/rbac/v1/types.ts';
import { GroupStorages } from './group-storage.ts';
import { EVENTS_BACKEND, startEncryption } from './encryption.ts';
import type { EtcdClusters } from './etcd-storage.ts';
import { startRbac } from './rbac.ts';
import { registerNodes } from '../registry/nodes/storage.ts';
import { NodeRestrictionPlugin } from '../registry/nodes/restriction.ts';
import { nodeProxyConnecter, nodeProxyTLS } from './node-proxy.ts';
import { GROUP as CERTIFICATES_GROUP } from '../apis/certificates/v1/types.ts';
import { CertificateSignerPlugin } from '../registry/certificatesigningrequests/admission.ts';
import { registerCertificateSigningRequests } from '../registry/certificatesigningrequests/storage.ts';
import { CSRControllers, loadSigningCA } from './csr-controllers.ts';
import { watchSettings } from '../server/handlers/watch.ts';
import { HealthChecks, logBlockedCheck } from '../server/healthz.ts';
import { APIServer } from '../server/server.ts';
import { installZpages } from '../server/zpages/handlers.ts';
import { startCompactor } from '../storage/compactor.ts';
import { type SqliteStorage, openSqliteStorage } from '../storage/sqlite/index.ts';
import { CacherMetrics } from '../storage/cacher/metrics.ts';
import { StorageMetrics, registerLeaseObjectCounts, registerStorageSize } from '../storage/metrics.ts';
import { WatchMetrics } from '../server/watch-metrics.ts';
import { log } from '../util/log.ts';
import { EMULATION_VERSION, MIN_COMPATIBILITY_VERSION, binaryVersion, majorMinor, versionInfo, versionLine } from '../version.ts';
import { effectiveConfig } from './configz.ts';
import { featureGates } from '../features.ts';
import { registerBuildInfo, registerVersionInfo } from '../metrics/build-info.ts';
import { registerFeatureEnabled } from '../metrics/feature-enabled.ts';
import { Registry } from '../metrics/registry.ts';
import { registerObjectCounts } from '../registry/generic/metrics.ts';
import { metricsHandler } from '../server/metrics-handler.ts';
import { RequestMetrics, registerInflightGauge, registerReadVsWrite } from '../server/request-metrics.ts';
import { healthcheckSLIs } from '../server/healthz-metrics.ts';
import { type Pki, ensurePki, loadClientCaFile, loadRequestHeaderCaFile, loadTlsFiles } from './certs.ts';
import { COMMAND, FlagError, flagRegistry, parseFlags, requestHeaderWarnings, usage, type ServerOptions } from './flags.ts';
import { writeAdminKubeconfig } from './kubeconfig.ts';
import { DEFAULT_ENDPOINT, loadTracingConfiguration } from '../config/tracing.ts';
import { startTracing, type TracingProvider } from '../tracing/provider.ts';
import { activeTracer } from '../tracing/tracing.ts';
import { type KeyOwner, tracedStorage } from '../storage/traced.ts';
import type { Storage } from '../storage/interface.ts';
import { EVENTS_KEY_ROOT } from '../registry/events/storage.ts';
import { GROUP as EVENTS_GROUP, KIND as EVENT_KIND, RESOURCE as EVENTS_RESOURCE } from '../apis/events/v1/types.ts';


/**
 * Serving certificate and client CA. Without cert flags everything comes from the generated PKI; with them, the
 * generated CA still signs the admin client certificate unless `--client-ca-file` names another CA, and the admin
 * kubeconfig then trusts the given certificate file (self-signed, or carrying its chain).
 */
async function loadTls(opts: ServerOptions): Promise<{ cert: string; key: string; clientCA: string; kubeconfig?: { ca: string; cert: string; key: string }; pki?: Pki }> {
  const pki = opts.tlsCertFile && opts.clientCaFile ? undefined : await ensurePki(opts.dataDir, { hosts: [opts.bindAddress] });
  const clientCA = opts.clientCaFile ? loadClientCaFile(opts.clientCaFile) : pki!.caCertPem;
  const admin = pki && !opts.clientCaFile ? { cert: pki.adminCertPem, key: pki.adminKeyPem } : undefined;
  if (opts.tlsCertFile) {
    const files = loadTlsFiles(opts.tlsCertFile, opts.tlsPrivateKeyFile);
    return { cert: files.certPem, key: files.keyPem, clientCA, ...(admin ? { kubeconfig: { ca: files.certPem, ...admin } } : {}), ...(pki ? { pki } : {}) };
  }
  return { cert: pki!.serverCertPem, key: pki!.serverKeyPem, clientCA, ...(admin ? { kubeconfig: { ca: pki!.caCertPem, ...admin } } : {}), pki: pki! };
}

/** The resource a storage key belongs to, for the storage spans. */
function keyOwner(key: string): KeyOwner | undefined {
  return key.startsWith(`${EVENTS_KEY_ROOT}/`) ? { group: EVENTS_GROUP, resource: EVENTS_RESOURCE, type: EVENT_KIND } : undefined;
}

/**
 * Tracing from `--tracing-config-file`, or undefined without one. A file that does not load stops the start with
 * upstream's message (`failed to read tracing config: …`, `failed to validate tracing configuration: …`).
 */
async function setUpTracing(file: string): Promise<TracingProvider | undefined> {
  if (!file) return undefined;
  const config = loadTracingConfiguration(file);
  const provider = await startTracing(config);
  log.info('Tracing enabled', {
    endpoint: config.endpoint ?? DEFAULT_ENDPOINT,
    samplingRatePerMillion: config.samplingRatePerMillion ?? 0,
    instanceID: provider.instanceID,
  });
  return provider;
}

/**
 * kube-apiserver's authenticator (pkg/kubeapiserver/authenticator): front-proxy headers, client certificates, bearer
 * tokens, in that order, then anonymous for a request without credentials. The token union is where JWT issuers
 * of an AuthenticationConfiguration join (token.ts). Files are read once, here: a bad one stops the start.
 */
function buildAuthenticator(
  opts: ServerOptions,
  clientCA: string,
  /** Absent in the benchmark's no-metrics baseline. */
  metrics: AuthenticationMetrics | undefined,
  jwt: readonly TokenAuthenticator[],
  anonymous: { enabled: boolean; paths?: readonly string[] },
  tokenCacheMetrics: TokenCacheMetrics | undefined,
): { authenticator: Authenticator; tokens: TokenUnion; bearer: BearerTokenAuthenticator; requestHeaders?: RequestHeaderNames; requestHeaderCA?: string } {
  const rh = opts.requestHeader;
  const requestHeaderCA = rh.clientCaFile ? loadRequestHeaderCaFile(rh.clientCaFile) : undefined;
  const authenticators: Authenticator[] = [];
  let requestHeaders: RequestHeaderNames | undefined;
  if (requestHeaderCA) {
    requestHeaders = { usernameHeaders: rh.usernameHeaders, uidHeaders: rh.uidHeaders, groupHeaders: rh.groupHeaders, extraHeaderPrefixes: rh.extraHeaderPrefixes };
    authenticators.push(new RequestHeaderAuthenticator({ ...requestHeaders, anchors: new CertificateAnchors(requestHeaderCA), allowedNames: rh.allowedNames }));
  }
  authenticators.push(
    new X509Authenticator({
      // With a front-proxy CA in the handshake too, a client certificate must chain to the client CA itself.
      ...(requestHeaderCA ? { anchors: new CertificateAnchors(clientCA) } : {}),
      ...(metrics ? { observeExpiration: metrics.certificateExpiration } : {}),
    }),
  );
  const tokens = new TokenUnion();
  tokens.set([...(opts.tokenAuthFile ? [TokenFileAuthenticator.fromFile(opts.tokenAuthFile, (m) => log.warning(m))] : []), ...jwt]);
  // Upstream's token cache in front of the whole union (10 s for successes, single-flight for misses).
  const bearer = new BearerTokenAuthenticator(tokens, new CachedTokenAuthenticator(tokens, { metrics: tokenCacheMetrics }));
  authenticators.push(bearer);
  const union = new UnionAuthenticator(authenticators);
  return {
    authenticator: anonymous.enabled ? new AnonymousFallback(union, anonymous.paths) : union,
    tokens,
    bearer,
    ...(requestHeaders ? { requestHeaders } : {}),
    ...(requestHeaderCA ? { requestHeaderCA } : {}),
  };
}

/**
 * The JWT authenticator of the `--oidc-*` flags, or undefined without `--oidc-issuer-url`. Built from the
 * AuthenticationConfiguration entry the flags stand for (authentication-oidc-flags.ts), validated and compiled as a
 * file's would be: a bad value stops the start with that validation's text.
 */
function oidcFlagsAuthenticator(flags: ServerOptions['oidc'], registry: Registry, apiserverID: string): JWTAuthenticators | undefined {
  const built = oidcFlagsToAuthenticationConfiguration(flags);
  if (!built) return undefined;
  const compiled = compileAuthenticationConfiguration(built.config);
  const metrics = new JWTMetrics(registry, apiserverID, { jwksMetrics: featureGates.enabled('StructuredAuthenticationConfigurationJWKSMetrics') });
  // No cache of its own: the server's token cache is in front of the token union.
  return newJWTAuthenticators(compiled, { ...metrics.hooks, successCacheTTLMs: 0, signingAlgorithms: built.signingAlgorithms });
}

/** Upstream's statusz reports when the process began, not when serving did. */
const PROCESS_START = new Date(Date.now() - process.uptime() * 1000);

export async function run(argv: string[]): Promise<number> {
  let opts: ServerOptions;
  try {
    opts = parseFlags(argv);
  } catch (e) {
    if (e instanceof FlagError) {
      process.stderr.write(`Error: ${e.message}\n`);
      return 1;
    }
    throw e;
  }
  if (opts.help) {
    process.stdout.write(usage());
    return 0;
  }
  if (opts.version) {
    process.stdout.write(versionLine() + '\n');
    return 0;
  }
  log.setVerbosity(opts.verbosity);
  for (const w of requestHeaderWarnings(opts.requestHeader)) log.warning(w);
  const dataDir = resolve(opts.dataDir);
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  log.info('Starting core-apiserver', { version: versionLine(), dataDir });

  const tracing = await setUpTracing(opts.tracingConfigFile);
  const tracer = activeTracer();
  const tls = await loadTls({ ...opts, dataDir });
  const ttlSeconds = Math.round(opts.eventTtlMs / 1000);
  // The benchmark's baseline (bench/scenarios/metrics-cost.ts) is this server with nothing recorded per request.
  const recording = process.env.CORE_APISERVER_BENCH_NO_METRICS !== '1';
  const metrics = new Registry({
    version: versionInfo.gitVersion,
    showHiddenMetricsForVersion: opts.showHiddenMetricsForVersion,
    disabledMetrics: opts.disabledMetrics,
    allowMetricLabels: toAllowList(Object.keys(opts.allowMetricLabels).length || !opts.allowMetricLabelsManifest ? opts.allowMetricLabels : readAllowListManifest(opts.allowMetricLabelsManifest)),
    nativeHistograms: featureGates.enabled('NativeHistograms'),
  });
  registerVersionInfo(metrics, binaryVersion(), majorMinor(EMULATION_VERSION), majorMinor(MIN_COMPATIBILITY_VERSION));
  // Before any database is opened: a value is never written with other transformers than the file's.
  const apiserverID = `apiserver-${randomUUID()}`;
  const encryption = opts.encryptionProviderConfig
    ? await startEncryption(opts.encryptionProviderConfig, opts.encryptionProviderConfigAutomaticReload, { apiserverID, ...(recording ? { registry: metrics } : {}) })
    : undefined;
  const dbPath = join(dataDir, 'events.db');
  const eventsTransformer = encryption?.transformers.forBackend(EVENTS_BACKEND);
  // --storage-backend=etcd3: every API group's storage on etcd (see etcd-storage.ts); else SQLite files in dataDir.
  // Loaded only then: the etcd client brings gRPC, which a server on SQLite never loads.
  const etcd: EtcdClusters | undefined = opts.storageBackend === 'etcd3' ? new (await import('./etcd-storage.ts')).EtcdClusters(opts.etcd) : undefined;
  await etcd?.checkReachable();
  const backend = etcd
    ? etcd.open('events.cluster.io', eventCodec, eventsTransformer)
    : openSqliteStorage({ path: dbPath, codec: eventCodec, synchronous: opts.sqliteSynchronous, ...(eventsTransformer ? { transformer: eventsTransformer } : {}) });
  const storage = tracer ? tracedStorage(backend, keyOwner) : backend;
  const stopProcessMetrics = registerProcessMetrics(metrics);
  const resourceMetrics = recording ? { cache: new CacherMetrics(metrics), storage: new StorageMetrics(metrics) } : undefined;
  const events = await registerEvents(storage, {
    ttlSeconds,
    onError: (err: Error) => log.error('Watch cache lost its storage watch; relisting', { err: err.message }),
    ...(resourceMetrics ? { metrics: resourceMetrics } : {}),
  });
  // The storage spans name the resource of a key: its scope's key root (filled once the resources are registered).
  const groupKeyOwners = new Map<string, KeyOwner>();
  const groupKeyOwner = (key: string) => groupKeyOwners.get(key.slice(0, key.indexOf('/', 1) + 1));
  // RBAC objects live in their group's own database beside events.db; no TTL, compacted like the events history.
  const groupStorages = new GroupStorages({
    dataDir,
    synchronous: opts.sqliteSynchronous,
    ...(tracer ? { wrap: (s) => tracedStorage(s, groupKeyOwner) } : {}),
    ...(encryption ? { transformer: (group: string) => encryption.transformers.forBackend(group) } : {}),
    ...(etcd ? { open: (group, scheme, transformer) => ({ backend: etcd.open(group, scheme, transformer), path: opts.etcd.prefix }) } : {}),
  });
  const rbacStorage = groupStorages.forGroup(RBAC_GROUP);
  const rbac = await startRbac({
    storage: rbacStorage.storage,
    scheme: rbacStorage.scheme,
    privilegedGroups: [GROUP_MASTERS],
    onError: (err: Error) => log.error('Watch cache lost its storage watch; relisting', { err: err.message }),
    ...(resourceMetrics ? { metrics: resourceMetrics } : {}),
  });
  // core/v1 Nodes: the core group's own database (core.db), like RBAC's.
  const coreStorage = groupStorages.forGroup('');
  const nodes = await registerNodes({
    storage: coreStorage.storage,
    scheme: coreStorage.scheme,
    onError: (err: Error) => log.error('Watch cache lost its storage watch; relisting', { err: err.message }),
    ...(resourceMetrics ? { metrics: resourceMetrics } : {}),
  });
  groupKeyOwners.set(nodes.nodes.store.prefix(''), { group: '', resource: 'nodes', type: 'Node' });
  // certificates.k8s.io: CertificateSigningRequests in their group's own database, and the controllers that approve
  // and sign them (kube-controller-manager's, here in-process).
  const certStorage = groupStorages.forGroup(CERTIFICATES_GROUP);
  const csrs = await registerCertificateSigningRequests({
    storage: certStorage.storage,
    scheme: certStorage.scheme,
    onError: (err: Error) => log.error('Watch cache lost its storage watch; relisting', { err: err.message }),
    ...(resourceMetrics ? { metrics: resourceMetrics } : {}),
  });
  groupKeyOwners.set(csrs.csrs.store.prefix(''), { group: CERTIFICATES_GROUP, resource: 'certificatesigningrequests', type: 'CertificateSigningRequest' });
  // The generated CA signs only when its key is ours: with --client-ca-file, certificates it signs would not be trusted.
  const signingCA = await loadSigningCA(opts.clusterSigning, tls.pki && !opts.clientCaFile ? { certPem: tls.pki.caCertPem, keyPem: tls.pki.caKeyPem } : undefined);
  if (!signingCA) log.warning('No cluster signing CA (--cluster-signing-cert-file/--cluster-signing-key-file): approved CertificateSigningRequests stay unsigned');
  nodes.nodes.scope.connect = { proxy: nodeProxyConnecter(nodes.nodes.store, opts.kubelet, nodeProxyTLS(opts.kubelet, tls.kubeconfig)) };
  if (recording) watchSettings.metrics = new WatchMetrics(metrics);
  for (const r of Object.values(rbac.resources)) groupKeyOwners.set(r.store.prefix(''), { group: r.scope.group, resource: r.scope.resource, type: r.scope.kind });
  const sizes = etcd ? etcd.sizeSources() : [{ storage: backend as SqliteStorage, endpoint: dbPath }, ...groupStorages.all().map((g) => ({ storage: g.backend as SqliteStorage, endpoint: g.path }))];
  registerStorageSize(metrics, sizes[0]!.storage, sizes[0]!.endpoint, ...sizes.slice(1));
  // etcd: upstream's compactor per cluster; SQLite: history kept for the event TTL.
  const compactors = etcd ? etcd.startCompactors() : [storage, rbacStorage.storage, coreStorage.storage, certStorage.storage].map((s) => startCompactor(s, { retentionMs: Math.max(opts.eventTtlMs, 75_000) }));
  watchSettings.minRequestTimeoutSeconds = opts.minRequestTimeoutSeconds;

  // Loaded before serving: a bad file stops the start with upstream's message.
  const jwt = opts.authenticationConfig ? new ReloadingJWTAuthenticator(opts.authenticationConfig, { registry: metrics, apiserverID }) : undefined;
  // Or the legacy --oidc-* flags (flags.ts refuses both): the same authenticator, from the entry they stand for.
  const oidc = jwt ? undefined : oidcFlagsAuthenticator(opts.oidc, metrics, apiserverID);
  const authorizationMetrics = recording ? new AuthorizationMetrics(metrics) : undefined;
  const configured = new ConfiguredAuthorizer(opts.authorization, { rbac: rbac.authorizer, apiserverID, ...(authorizationMetrics ? { metrics: authorizationMetrics } : {}) });

  const slis = healthcheckSLIs(versionInfo.gitVersion);
  const health = new HealthChecks({ log: (m) => log.warning(m), observe: slis.observe });
  health.add('log', logBlockedCheck(), ['healthz', 'livez', 'readyz']);
  for (const c of encryption?.healthChecks ?? []) health.add(c.name, c.check, ['healthz', 'livez', 'readyz']);
  if (etcd) for (const c of etcd.healthChecks()) health.add(c.name, c.fn, c.endpoints);
  else health.add(storage.name, async () => void (await Promise.all([storage.readinessCheck(), groupStorages.readinessCheck()])), ['healthz', 'livez', 'readyz']);

  let address = `${opts.bindAddress}:${opts.securePort}`;
  // core/v1 Events: the same stored objects under the older field names (kubectl events, get events, k9s).
  const coreEvents = registerCoreEvents(events, { ttlSeconds });
  // The access reviews ask the authorizer chain and rule resolvers built below, at request time.
  const scopes = [
    events.scope,
    coreEvents.scope,
    ...registerSelfSubjectReviews(),
    ...rbac.scopes,
    nodes.nodes.scope,
    csrs.csrs.scope,
    ...registerAccessReviews({ authorizer: () => authorizer, ruleResolver: () => ruleResolver }),
    // The bearer-token authenticators built below, asked as for a request that carries only the token.
    ...registerTokenReviews({ authenticate: async (token) => authn.bearer.authenticate({ headers: { authorization: `Bearer ${token}` } } as AuthenticatorRequest) }),
  ];
  const apis = installAPIs(scopes, { referenceKinds: CORE_REFERENCE_KINDS, serverAddress: () => address });
  registerBuildInfo(metrics, versionInfo);
  registerFeatureEnabled(metrics, featureGates.list());
  const polled = (s: Storage, prefix: string) => (etcd ? { count: etcd.countPoller(s, prefix) } : {});
  registerObjectCounts(metrics, [
    ...[events, coreEvents].map((r) => ({ group: r.scope.group, resource: r.scope.resource, cacher: r.cacher, ...polled(backend, `${EVENTS_KEY_ROOT}/`) })),
    ...Object.values(rbac.resources).map((r) => ({ group: r.scope.group, resource: r.scope.resource, cacher: r.cacher, ...polled(rbacStorage.backend, r.store.prefix('')) })),
    { group: '', resource: 'nodes', cacher: nodes.nodes.cacher, ...polled(coreStorage.backend, nodes.nodes.store.prefix('')) },
    { group: CERTIFICATES_GROUP, resource: 'certificatesigningrequests', cacher: csrs.csrs.cacher, ...polled(certStorage.backend, csrs.csrs.store.prefix('')) },
  ]);
  if (etcd) etcd.onLeaseRetired = registerLeaseObjectCounts(metrics);
  const authenticationMetrics = new AuthenticationMetrics(metrics);
  // The file's `anonymous` section wins over --anonymous-auth, which may then not be given at all (upstream).
  const fileAnonymous = jwt?.anonymous;
  const conflict = anonymousFlagConflict(fileAnonymous, opts.anonymousAuthSet);
  if (conflict) throw new Error(aggregateText([conflict]));
  const anonymous = fileAnonymous ? { enabled: fileAnonymous.enabled, paths: fileAnonymous.conditions.map((c) => c.path) } : { enabled: opts.anonymousAuth };
  if (!fileAnonymous && anonymous.enabled && !opts.authorization.config && opts.authorization.modes.includes('AlwaysAllow')) {
    // Upstream's ApplyAuthorization: AlwaysAllow would hand everything to anyone without credentials.
    log.warning('AnonymousAuth is not allowed with the AlwaysAllow authorizer. Resetting AnonymousAuth to false. You should use a different authorizer');
    anonymous.enabled = false;
  }
  const authn = buildAuthenticator(opts, tls.clientCA, recording ? authenticationMetrics : undefined, jwt ? [jwt] : oidc ? [oidc] : [], anonymous, recording ? new TokenCacheMetrics(metrics) : undefined);
  let servingPort = opts.securePort;
  const zpages = installZpages({
    statusz: {
      component: COMMAND,
      startTime: PROCESS_START,
      goVersion: versionInfo.goVersion,
      binaryVersion: binaryVersion(),
      emulationVersion: majorMinor(EMULATION_VERSION),
      minimumCompatibilityVersion: majorMinor(MIN_COMPATIBILITY_VERSION),
      paths: () => [...health.paths(), ...apis.paths, '/metrics', '/metrics/slis'],
    },
    flags: () => [...flagRegistry().values()],
    configz: () => effectiveConfig(opts, { dataDir, port: servingPort }),
  });
  // system:masters may do everything (kube-apiserver puts this authorizer first, before --authorization-mode), then
  // the configured chain (RBAC by default); a request nothing allows ends with NoOpinion: 403.
  const authorizer = new UnionAuthorizer([new PrivilegedGroupsAuthorizer([GROUP_MASTERS]), configured]);
  // What `kubectl auth can-i --list` reads: the rule resolvers of the configured authorizers, reloaded with them (the
  // system:masters shortcut has none, as upstream; its members see cluster-admin's rules through the bootstrap binding).
  const ruleResolver = configured;
  // RBAC escalation prevention is always on (upstream runs it in RBAC's REST strategy); the named plugins are what
  // --enable-admission-plugins and --admission-control-config-file choose. A bad configuration stops the start here.
  const resourceAllowed = async (user: { name: string; uid?: string; groups: readonly string[]; extra?: Readonly<Record<string, string[]>> }, attrs: { verb: string; group: string; resource: string; subresource?: string; name?: string }) => {
    const r = await authorizer.authorize({
      user: { name: user.name, ...(user.uid ? { uid: user.uid } : {}), groups: [...user.groups], ...(user.extra ? { extra: user.extra } : {}) },
      verb: attrs.verb,
      namespace: '',
      apiGroup: attrs.group,
      apiVersion: '*',
      resource: attrs.resource,
      subresource: attrs.subresource ?? '',
      name: attrs.name ?? '',
      path: '',
      isResourceRequest: true,
    });
    return r.decision === 'Allow';
  };
  const signerPlugin = new CertificateSignerPlugin((user, verb, signerName) => resourceAllowed(user, { verb, group: CERTIFICATES_GROUP, resource: 'signers', name: signerName }));
  const admission = buildAdmissionChain(opts, [rbac.escalation(() => authorizer), new NodeRestrictionPlugin(), signerPlugin], recording ? new AdmissionMetrics(metrics) : undefined);
  const server = new APIServer({
    bindAddress: opts.bindAddress,
    port: opts.securePort,
    // The handshake asks for certificates of either authority; each authenticator checks its own (anchors.ts).
    tls: { cert: tls.cert, key: tls.key, clientCA: authn.requestHeaderCA ? `${tls.clientCA.trimEnd()}\n${authn.requestHeaderCA}` : tls.clientCA },
    scopes,
    health,
    pathHandlers: [...apis.pathHandlers, ...zpages.pathHandlers, metricsHandler(metrics), metricsHandler(slis.registry, '/metrics/slis')],
    servedPrefixes: apis.servedPrefixes,
    ...(recording ? { requestMetrics: new RequestMetrics(metrics) } : {}),
    // Upstream's order: front-proxy headers, client certificates, bearer tokens (token file, then the JWT issuers of
    // --authentication-config), then anonymous.
    authenticator: authn.authenticator,
    ...(authn.requestHeaders ? { requestHeaders: authn.requestHeaders } : {}),
    ...(recording ? { authenticationMetrics } : {}),
    authorizer,
    ...(authorizationMetrics ? { recordAuthorization: (a) => authorizationMetrics.filter(a) } : {}),
    admission,
    maxRequestsInflight: opts.maxRequestsInflight,
    maxMutatingRequestsInflight: opts.maxMutatingRequestsInflight,
    requestTimeoutMs: opts.requestTimeoutMs,
    ...(tracer ? { tracer } : {}),
  });
  const stopInflightGauge = registerInflightGauge(metrics, () => server.maxInFlight.takeWatermarks());
  if (recording) registerReadVsWrite(metrics, server.maxInFlight);
  // The approver's SubjectAccessReview: may the CSR's requester (as recorded in its spec) create the subresource?
  const csrControllers = new CSRControllers({
    resources: csrs,
    ca: signingCA,
    durationMs: opts.clusterSigning.durationMs,
    authorize: (csr, a) => resourceAllowed({ name: csr.spec.username ?? '', ...(csr.spec.uid ? { uid: csr.spec.uid } : {}), groups: csr.spec.groups ?? [], ...(csr.spec.extra ? { extra: csr.spec.extra } : {}) }, a),
  });
  await csrControllers.start();
  const port = await server.listen();
  servingPort = port;
  const host = opts.bindAddress.includes(':') ? `[${opts.bindAddress}]` : opts.bindAddress;
  address = `${host}:${port}`;
  const url = `https://${opts.bindAddress === '0.0.0.0' || opts.bindAddress === '::' ? '127.0.0.1' : host}:${port}`;
  log.info('Serving securely', { address: `${host}:${port}`, storage: etcd ? `etcd3:${etcd.describe()}` : `${storage.name}:${dbPath}` });
  if (tls.kubeconfig) {
    const kubeconfig = join(dataDir, 'admin.kubeconfig');
    writeAdminKubeconfig(kubeconfig, { server: url, caPem: tls.kubeconfig.ca, certPem: tls.kubeconfig.cert, keyPem: tls.kubeconfig.key });
    log.info('Wrote admin kubeconfig', { path: kubeconfig, try: `kubectl --kubeconfig ${kubeconfig} get events.v1.events.cluster.io -A` });
    if (tls.pki && !opts.clientCaFile) {
      // A node agent's TLS bootstrap credential (system:bootstrappers): it may file CSRs and nothing else.
      const bootstrap = join(dataDir, 'bootstrap.kubeconfig');
      writeAdminKubeconfig(bootstrap, { server: url, caPem: tls.kubeconfig.ca, certPem: tls.pki.bootstrapCertPem, keyPem: tls.pki.bootstrapKeyPem, user: 'corelet-bootstrap' });
      log.info('Wrote bootstrap kubeconfig', { path: bootstrap, try: 'npm run corelet -- --pod-manifest-path examples/pods' });
    }
  }

  return new Promise<number>((done) => {
    let stopping = false;
    const stop = async (signal: string) => {
      if (stopping) return;
      stopping = true;
      log.info('Received signal, shutting down', { signal, shutdownDelay: `${opts.shutdownDelayMs}ms` });
      health.setShuttingDown();
      if (opts.shutdownDelayMs > 0) await new Promise((r) => setTimeout(r, opts.shutdownDelayMs));
      await server.shutdown(60_000);
      for (const c of compactors) c.stop();
      stopInflightGauge();
      jwt?.stop();
      encryption?.stop();
      oidc?.close();
      configured.stop();
      stopProcessMetrics();
      events.cacher.stop();
      rbac.stop();
      nodes.nodes.cacher.stop();
      csrControllers.stop();
      csrs.csrs.cacher.stop();
      await storage.close();
      await groupStorages.close();
      etcd?.close();
      await tracing?.shutdown();
      log.info('Shutdown complete');
      log.flush();
      done(0);
    };
    process.once('SIGTERM', () => void stop('SIGTERM'));
    process.once('SIGINT', () => void stop('SIGINT'));
  });
}

run(process.argv.slice(2)).then(
  (code) => {
    log.flush();
    process.exit(code);
  },
  (err: unknown) => {
    log.error('Fatal error', { err: err instanceof Error ? err.message : String(err) });
    log.flush();
    process.stderr.write(`Error: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
