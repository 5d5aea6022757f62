/**
 * What /configz serves: the configuration the server runs with, after flags, defaults and start-up (the data
 * directory resolved, the port picked when `--secure-port=0`), in the flags' own names and units. /flagz shows
 * the flags as given; this is what they became.
 */
import { formatGoDuration } from '../apimachinery/duration.ts';
import { enabledPluginNames } from '../admission/plugins.ts';
import { featureGates } from '../features.ts';
import { COMMAND, type ServerOptions } from './flags.ts';

/** `{"core-apiserver": {...}}`: upstream's configz keys every registered configuration by its name. */
export function effectiveConfig(opts: ServerOptions, serving: { dataDir: string; port: number }): Record<string, unknown> {
  return {
    [COMMAND]: {
      dataDir: serving.dataDir,
      bindAddress: opts.bindAddress,
      securePort: serving.port,
      tlsCertFile: opts.tlsCertFile,
      tlsPrivateKeyFile: opts.tlsPrivateKeyFile,
      clientCAFile: opts.clientCaFile,
      storageBackend: opts.storageBackend,
      sqliteSynchronous: opts.sqliteSynchronous,
      ...(opts.storageBackend === 'etcd3'
        ? {
            etcdServers: opts.etcd.servers,
            etcdPrefix: opts.etcd.prefix,
            etcdServersOverrides: opts.etcd.serversOverrides.map((o) => `${o.group}/${o.resource}#${o.servers.join(';')}`),
            etcdCompactionInterval: formatGoDuration(opts.etcd.compactionIntervalMs),
            leaseReuseDurationSeconds: opts.etcd.leaseReuseDurationSeconds,
          }
        : {}),
      eventTTL: formatGoDuration(opts.eventTtlMs),
      shutdownDelayDuration: formatGoDuration(opts.shutdownDelayMs),
      maxRequestsInflight: opts.maxRequestsInflight,
      maxMutatingRequestsInflight: opts.maxMutatingRequestsInflight,
      minRequestTimeout: opts.minRequestTimeoutSeconds,
      requestTimeout: formatGoDuration(opts.requestTimeoutMs),
      verbosity: opts.verbosity,
      tracingConfigFile: opts.tracingConfigFile,
      // The named admission plugins that run, in order, after the enable/disable flags and the defaults.
      admissionPlugins: enabledPluginNames(opts.enableAdmissionPlugins, opts.disableAdmissionPlugins),
      admissionControlConfigFile: opts.admissionControlConfigFile,
      // The chain after system:masters: the file, or the modes (RBAC by default) when there is none.
      ...(opts.authorization.config ? { authorizationConfig: opts.authorization.config } : { authorizationModes: opts.authorization.modes }),
      // Every gate's effective state, not only those given: what the server actually does.
      featureGates: Object.fromEntries(featureGates.list().map((f) => [f.name, f.enabled])),
    },
  };
}
