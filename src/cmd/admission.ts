/**
 * The admission chain the server runs (upstream `AdmissionOptions.ApplyTo` and `Plugins.NewFromPlugins`): the
 * enabled named plugins in the recommended order, each built from its AdmissionConfiguration entry, beside the
 * built-in checks that are always on. Every failure stops the start with upstream's text:
 * `failed to apply admission: failed to read plugin config: …` (the configuration file),
 * `Couldn't open admission plugin configuration …` (a plugin's `path`),
 * `failed to apply admission: couldn't init admission plugin "EventRateLimit": …` (the plugin's own configuration).
 */
import { AdmissionChain, type AdmissionObserver, type NamedPlugin } from '../admission/chain.ts';
import type { Plugin } from '../admission/interfaces.ts';
import { enabledPluginNames, pluginFactory, registeredPlugins } from '../admission/plugins.ts';
import { aggregateText } from '../apimachinery/field.ts';
import { type AdmissionConfiguration, pluginConfiguration, readAdmissionConfiguration, validatePluginNames } from '../config/admission.ts';
import { log } from '../util/log.ts';
import type { ServerOptions } from './flags.ts';

export function buildAdmissionChain(
  opts: Pick<ServerOptions, 'enableAdmissionPlugins' | 'disableAdmissionPlugins' | 'admissionControlConfigFile'>,
  builtIn: readonly Plugin[],
  observer?: AdmissionObserver,
): AdmissionChain {
  const names = enabledPluginNames(opts.enableAdmissionPlugins, opts.disableAdmissionPlugins);
  let config: AdmissionConfiguration;
  try {
    config = readAdmissionConfiguration(opts.admissionControlConfigFile);
    const errs = validatePluginNames(config, registeredPlugins());
    if (errs.length) throw new Error(aggregateText(errs));
  } catch (e) {
    throw new Error(`failed to apply admission: failed to read plugin config: ${(e as Error).message}`);
  }
  // Upstream passes over configuration for a plugin that is not enabled; say so, since the likely cause is a
  // forgotten --enable-admission-plugins, and the limits then silently do not apply.
  for (const p of config.plugins) {
    if (!names.includes(p.name)) log.warning(`The admission configuration configures plugin ${p.name}, which is not enabled (--enable-admission-plugins); its configuration is not used`);
  }
  const plugins: NamedPlugin[] = names.map((name) => {
    // Read outside the try below: an unreadable `path` is upstream's fatal log line, not an init error.
    const text = pluginConfiguration(config, name);
    try {
      return { name, plugin: pluginFactory(name)!(text) };
    } catch (e) {
      throw new Error(`failed to apply admission: couldn't init admission plugin "${name}": ${(e as Error).message}`);
    }
  });
  const mutating = plugins.filter((p) => typeof p.plugin.admit === 'function').map((p) => p.name);
  const validating = plugins.filter((p) => typeof p.plugin.validate === 'function').map((p) => p.name);
  if (mutating.length) log.info(`Loaded ${mutating.length} mutating admission controller(s) successfully in the following order: ${mutating.join(',')}.`);
  if (validating.length) log.info(`Loaded ${validating.length} validating admission controller(s) successfully in the following order: ${validating.join(',')}.`);
  return new AdmissionChain(builtIn, { plugins, ...(observer ? { observer } : {}) });
}
