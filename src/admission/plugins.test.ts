import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { defaultEnabledPlugins, enabledPluginNames, registeredPlugins, validateAdmissionFlags } from './plugins.ts';

describe('admission plugins', () => {
  it('registers EventRateLimit, off by default', () => {
    assert.deepEqual(registeredPlugins(), ['EventRateLimit']);
    assert.deepEqual(defaultEnabledPlugins(), []);
    assert.deepEqual(enabledPluginNames([], []), []);
    assert.deepEqual(enabledPluginNames(['EventRateLimit'], []), ['EventRateLimit']);
    assert.deepEqual(enabledPluginNames([], ['EventRateLimit']), []);
  });

  it('refuses unknown names and overlaps with upstream\'s texts', () => {
    assert.deepEqual(validateAdmissionFlags(['EventRateLimit'], []), []);
    assert.deepEqual(validateAdmissionFlags(['AlwaysDeny', 'NamespaceLifecycle'], ['Foo']), [
      'enable-admission-plugins plugin "AlwaysDeny" is unknown',
      'enable-admission-plugins plugin "NamespaceLifecycle" is unknown',
      'disable-admission-plugins plugin "Foo" is unknown',
    ]);
    assert.deepEqual(validateAdmissionFlags(['EventRateLimit'], ['EventRateLimit']), ['[EventRateLimit] in enable-admission-plugins and disable-admission-plugins overlapped']);
  });
});
