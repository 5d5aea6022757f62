/**
 * The named admission plugins this server has (upstream `admission.Plugins` and kube-apiserver's
 * `pkg/kubeapiserver/options/plugins.go`), the order they run in, which are on by default, and the checks of
 * `--enable-admission-plugins` / `--disable-admission-plugins` with upstream's texts.
 *
 * Only plugins for resources served here are registered: EventRateLimit (off by default, as upstream). Upstream's
 * AlwaysAdmit and AlwaysDeny are deprecated test aids and are not registered; NamespaceLifecycle, webhooks and
 * policies have no resources here. RBAC escalation prevention is no named plugin: upstream runs it inside the RBAC
 * REST strategy, so it is always on and cannot be disabled (the chain runs it beside the named plugins).
 */
import { PLUGIN_NAME as EVENT_RATE_LIMIT, newEventRateLimit } from './plugin/eventratelimit/admission.ts';
import type { Plugin } from './interfaces.ts';

/** Builds a plugin from its configuration text (undefined: none given); throws Error with the plugin's text. */
export type PluginFactory = (config: string | undefined) => Plugin;

const FACTORIES: ReadonlyMap<string, PluginFactory> = new Map([[EVENT_RATE_LIMIT, (c) => newEventRateLimit(c)]]);

/**
 * Upstream's AllOrderedPlugins, keeping the plugins registered here. Mutating plugins run in this order, then
 * validating ones in this order; the order of the flags does not matter.
 */
export const RECOMMENDED_PLUGIN_ORDER: readonly string[] = [EVENT_RATE_LIMIT];

/** Registered but off unless enabled (upstream's DefaultOffAdmissionPlugins, restricted likewise). */
export const DEFAULT_OFF_PLUGINS: ReadonlySet<string> = new Set([EVENT_RATE_LIMIT]);

/** Every registered name, sorted (upstream `Plugins.Registered`). */
export function registeredPlugins(): string[] {
  return [...FACTORIES.keys()].sort();
}

export function pluginFactory(name: string): PluginFactory | undefined {
  return FACTORIES.get(name);
}

/** The plugins on by default, in order (the flags' help lists them). */
export function defaultEnabledPlugins(): string[] {
  return RECOMMENDED_PLUGIN_ORDER.filter((p) => !DEFAULT_OFF_PLUGINS.has(p));
}

/** upstream AdmissionOptions.Validate: unknown names and names in both flags, each as its own error. */
export function validateAdmissionFlags(enable: readonly string[], disable: readonly string[]): string[] {
  const errs: string[] = [];
  const known = new Set(FACTORIES.keys());
  for (const n of enable) if (!known.has(n)) errs.push(`enable-admission-plugins plugin "${n}" is unknown`);
  for (const n of disable) if (!known.has(n)) errs.push(`disable-admission-plugins plugin "${n}" is unknown`);
  const both = [...new Set(enable)].filter((n) => disable.includes(n)).sort();
  // Go's %v of a sorted []string: `[A B]`.
  if (both.length) errs.push(`[${both.join(' ')}] in enable-admission-plugins and disable-admission-plugins overlapped`);
  return errs;
}

/** upstream enabledPluginNames: the recommended order, minus what is off by default or disabled, plus what is enabled. */
export function enabledPluginNames(enable: readonly string[], disable: readonly string[]): string[] {
  const off = new Set([...DEFAULT_OFF_PLUGINS, ...disable].filter((n) => !enable.includes(n)));
  return RECOMMENDED_PLUGIN_ORDER.filter((n) => !off.has(n));
}
