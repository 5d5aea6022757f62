import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as errors from './errors.ts';

test('each Status reason has one error class, and it fixes the code upstream gives that reason', () => {
  const expected: [new (message: string) => errors.StatusError, errors.StatusReason, number][] = [
    [errors.UnknownError, '', 500],
    [errors.NotFoundError, 'NotFound', 404],
    [errors.AlreadyExistsError, 'AlreadyExists', 409],
    [errors.ConflictError, 'Conflict', 409],
    [errors.InvalidError, 'Invalid', 422],
    [errors.BadRequestError, 'BadRequest', 400],
    [errors.MethodNotAllowedError, 'MethodNotAllowed', 405],
    [errors.NotAcceptableError, 'NotAcceptable', 406],
    [errors.UnsupportedMediaTypeError, 'UnsupportedMediaType', 415],
    [errors.RequestEntityTooLargeError, 'RequestEntityTooLarge', 413],
    [errors.ExpiredError, 'Expired', 410],
    [errors.GoneError, 'Gone', 410],
    [errors.TooManyRequestsError, 'TooManyRequests', 429],
    [errors.UnauthorizedError, 'Unauthorized', 401],
    [errors.ForbiddenError, 'Forbidden', 403],
    [errors.InternalError, 'InternalError', 500],
    [errors.TimeoutError, 'Timeout', 504],
    [errors.StoreReadError, 'StoreReadError', 500],
    [errors.ServiceUnavailableError, 'ServiceUnavailable', 503],
  ];
  const classes = Object.values(errors).filter((v) => typeof v === 'function' && v.prototype instanceof errors.StatusError);
  assert.equal(classes.length, expected.length, 'one class per reason, no more');
  for (const [Cls, reason, code] of expected) {
    const e = new Cls('m');
    assert.ok(e instanceof errors.StatusError);
    assert.deepEqual([e.reason, e.code, e.toStatus().code], [reason, code, code], Cls.name);
  }
});

test('the helpers build upstream texts on those classes', () => {
  const nf = errors.newNotFound({ group: 'events.cluster.io', resource: 'events' }, 'x');
  assert.ok(nf instanceof errors.NotFoundError);
  assert.deepEqual(nf.toStatus(), {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: 'events.events.cluster.io "x" not found',
    reason: 'NotFound',
    details: { name: 'x', group: 'events.cluster.io', kind: 'events' },
    code: 404,
  });
  assert.deepEqual(errors.newResourceExpired('old', 'tok').toStatus().metadata, { continue: 'tok' });
});
