import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { release } from 'node:os';
import { nodeSystemInfo, osImage } from './node-info.ts';

describe('nodeSystemInfo', () => {
  it("reads os-release's PRETTY_NAME, quoted or not", () => {
    assert.equal(osImage('NAME="Debian GNU/Linux"\nPRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\nID=debian\n'), 'Debian GNU/Linux 12 (bookworm)');
    assert.equal(osImage('PRETTY_NAME=Alpine\n'), 'Alpine');
    assert.equal(osImage('ID=x\n'), '');
  });

  it("reports this machine's kernel and boot, and the corelet as its own runtime", () => {
    const info = nodeSystemInfo();
    assert.equal(info.kernelVersion, release());
    assert.equal(info.operatingSystem, 'linux');
    assert.match(info.bootID!, /^[0-9a-f-]{36}$/);
    assert.match(info.kubeletVersion!, /^v1\.\d+\.\d+/);
    assert.equal(info.containerRuntimeVersion, `corelet://${info.kubeletVersion}`);
  });
});
