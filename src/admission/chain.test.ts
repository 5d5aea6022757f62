import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { AdmissionChain, type AdmissionObserver } from './chain.ts';
import type { Attributes, Operation, Plugin } from './interfaces.ts';

function attrs(operation: Operation): Attributes {
  return {
    name: 'x', namespace: 'default', resource: { group: 'g', version: 'v1', resource: 'rs' }, subresource: '',
    kind: { group: 'g', version: 'v1', kind: 'K' }, operation, dryRun: false, object: null, oldObject: null,
    userInfo: { name: 'u', groups: [] },
  };
}

function recorder() {
  const seen: string[] = [];
  const obs: AdmissionObserver = {
    step: (type, op, rejected) => void seen.push(`step ${type} ${op} ${rejected}`),
    controller: (name, type, op, rejected) => void seen.push(`controller ${name} ${type} ${op} ${rejected}`),
  };
  return { seen, obs };
}

describe('AdmissionChain', () => {
  it('runs built-in checks first, then named plugins; mutating before validating is the caller\'s order', async () => {
    const order: string[] = [];
    const builtIn: Plugin = { handles: () => true, validate: () => void order.push('built-in validate') };
    const named: Plugin = { handles: () => true, admit: () => void order.push('named admit'), validate: () => void order.push('named validate') };
    const chain = new AdmissionChain([builtIn], { plugins: [{ name: 'N', plugin: named }] });
    await chain.admit(attrs('CREATE'));
    await chain.validate(attrs('CREATE'));
    assert.deepEqual(order, ['named admit', 'built-in validate', 'named validate']);
  });

  it('an empty chain has no step for any operation', () => {
    const chain = new AdmissionChain();
    for (const op of ['CREATE', 'UPDATE', 'DELETE', 'CONNECT'] as Operation[]) {
      assert.equal(chain.mutates(op), false);
      assert.equal(chain.validates(op), false);
    }
  });

  it('a validating named plugin makes the named chain a step of both kinds for what it handles (as upstream\'s step metrics count it)', async () => {
    const { seen, obs } = recorder();
    const limit: Plugin = { handles: (op) => op === 'CREATE', validate: () => {} };
    const chain = new AdmissionChain([], { plugins: [{ name: 'Limit', plugin: limit }], observer: obs });
    assert.equal(chain.mutates('CREATE'), true);
    assert.equal(chain.validates('CREATE'), true);
    assert.equal(chain.validates('DELETE'), false);
    await chain.admit(attrs('CREATE'));
    await chain.validate(attrs('CREATE'));
    assert.deepEqual(seen, ['step admit CREATE false', 'controller Limit validate CREATE false', 'step validate CREATE false']);
  });

  it('a refusal is recorded as rejected on the plugin and the step, and ends the chain', async () => {
    const { seen, obs } = recorder();
    const refuse: Plugin = { handles: () => true, validate: () => { throw new Error('no'); } };
    const after: Plugin = { handles: () => true, validate: () => void seen.push('after ran') };
    const chain = new AdmissionChain([], { plugins: [{ name: 'Refuse', plugin: refuse }, { name: 'After', plugin: after }], observer: obs });
    await assert.rejects(async () => chain.validate(attrs('UPDATE')), /no/);
    assert.deepEqual(seen, ['controller Refuse validate UPDATE true', 'step validate UPDATE true']);
  });

  it('built-in checks are not measured', async () => {
    const { seen, obs } = recorder();
    const chain = new AdmissionChain([{ handles: () => true, validate: () => {} }], { observer: obs });
    await chain.validate(attrs('CREATE'));
    assert.deepEqual(seen, []);
  });
});
