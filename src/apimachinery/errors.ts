/**
 * Status errors: one class, discriminated by the upstream StatusReason. Every failure a client can see is a
 * StatusError, turned into a `Status` object (or, for the few upstream plain-text answers, text) in one place:
 * src/server/responsewriters.ts.
 */
import type { FieldError } from './field.ts';
import { aggregateText } from './field.ts';

export type StatusReason =
  | ''
  | 'NotFound'
  | 'AlreadyExists'
  | 'Conflict'
  | 'Invalid'
  | 'BadRequest'
  | 'MethodNotAllowed'
  | 'NotAcceptable'
  | 'UnsupportedMediaType'
  | 'RequestEntityTooLarge'
  | 'Expired'
  | 'Gone'
  | 'TooManyRequests'
  | 'Unauthorized'
  | 'Forbidden'
  | 'InternalError'
  | 'Timeout'
  | 'ServiceUnavailable'
  | 'StoreReadError';

export interface StatusCause {
  reason?: string;
  message?: string;
  field?: string;
}

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

export interface Status {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: { continue?: string; resourceVersion?: string };
  status: 'Success' | 'Failure';
  message?: string;
  reason?: StatusReason;
  details?: StatusDetails;
  code?: number;
}

/** A group and resource, e.g. `{group: 'events.cluster.io', resource: 'events'}`. */
export interface GroupResource {
  group: string;
  resource: string;
}

export function qualifiedResource(gr: GroupResource): string {
  return gr.group ? `${gr.resource}.${gr.group}` : gr.resource;
}

/**
 * A failure a client sees as a `Status`. Only the subclasses below construct one — one per StatusReason, each
 * fixing its HTTP code — so a reason never travels with the wrong code.
 */
export abstract class StatusError extends Error {
  readonly code: number;
  readonly reason: StatusReason;
  readonly details: StatusDetails | undefined;
  /** Extra list metadata, used by 410 Expired on continue tokens. */
  readonly metadata: Status['metadata'];

  protected constructor(code: number, reason: StatusReason, message: string, details?: StatusDetails, metadata: Status['metadata'] = {}) {
    super(message);
    this.name = 'StatusError';
    this.code = code;
    this.reason = reason;
    this.details = details;
    this.metadata = metadata;
  }

  toStatus(): Status {
    const s: Status = { kind: 'Status', apiVersion: 'v1', metadata: this.metadata, status: 'Failure' };
    if (this.message) s.message = this.message;
    if (this.reason) s.reason = this.reason;
    if (this.details) s.details = this.details;
    s.code = this.code;
    return s;
  }
}

/** StatusReasonUnknown: what upstream answers for a plain Go error (500, no reason). */
export class UnknownError extends StatusError {
  constructor(message: string, details?: StatusDetails) {
    super(500, '', message, details);
  }
}
export class NotFoundError extends StatusError {
  constructor(message: string, details?: StatusDetails) {
    super(404, 'NotFound', message, details);
  }
}
export class AlreadyExistsError extends StatusError {
  constructor(message: string, details?: StatusDetails) {
    super(409, 'AlreadyExists', message, details);
  }
}
export class ConflictError extends StatusError {
  constructor(message: string, details?: StatusDetails) {
    super(409, 'Conflict', message, details);
  }
}
export class InvalidError extends StatusError {
  constructor(message: string, details?: StatusDetails) {
    super(422, 'Invalid', message, details);
  }
}
export class BadRequestError extends StatusError {
  constructor(message: string, details?: StatusDetails) {
    super(400, 'BadRequest', message, details);
  }
}
export class MethodNotAllowedError extends StatusError {
  constructor(message: string, details?: StatusDetails) {
    super(405, 'MethodNotAllowed', message, details);
  }
}
export class NotAcceptableError extends StatusError {
  constructor(message: string, details?: StatusDetails) {
    super(406, 'NotAcceptable', message, details);
  }
}
export class UnsupportedMediaTypeError extends StatusError {
  constructor(message: string, details?: StatusDetails) {
    super(415, 'UnsupportedMediaType', message, details);
  }
}
export class RequestEntityTooLargeError extends StatusError {
  constructor(message: string, details?: StatusDetails) {
    super(413, 'RequestEntityTooLarge', message, details);
  }
}
/** 410 Expired: a resourceVersion or continue token older than what is kept (with a fresh token when there is one). */
export class ExpiredError extends StatusError {
  constructor(message: string, details?: StatusDetails, metadata: Status['metadata'] = {}) {
    super(410, 'Expired', message, details, metadata);
  }
}
export class GoneError extends StatusError {
  constructor(message: string, details?: StatusDetails) {
    super(410, 'Gone', message, details);
  }
}
export class TooManyRequestsError extends StatusError {
  constructor(message: string, details?: StatusDetails) {
    super(429, 'TooManyRequests', message, details);
  }
}
export class UnauthorizedError extends StatusError {
  constructor(message: string, details?: StatusDetails) {
    super(401, 'Unauthorized', message, details);
  }
}
export class ForbiddenError extends StatusError {
  constructor(message: string, details?: StatusDetails) {
    super(403, 'Forbidden', message, details);
  }
}
export class InternalError extends StatusError {
  constructor(message: string, details?: StatusDetails) {
    super(500, 'InternalError', message, details);
  }
}
export class TimeoutError extends StatusError {
  constructor(message: string, details?: StatusDetails) {
    super(504, 'Timeout', message, details);
  }
}
/** Stored objects could not be read (decrypted or decoded): upstream's StatusReasonStoreReadError, a 500. */
export class StoreReadError extends StatusError {
  constructor(message: string, details?: StatusDetails) {
    super(500, 'StoreReadError', message, details);
  }
}

export class ServiceUnavailableError extends StatusError {
  constructor(message: string, details?: StatusDetails) {
    super(503, 'ServiceUnavailable', message, details);
  }
}

export function isStatusError(e: unknown): e is StatusError {
  return e instanceof StatusError;
}

export function isReason(e: unknown, reason: StatusReason): boolean {
  return e instanceof StatusError && e.reason === reason;
}

function details(gr: GroupResource, name: string): StatusDetails {
  const d: StatusDetails = {};
  if (name) d.name = name;
  if (gr.group) d.group = gr.group;
  d.kind = gr.resource;
  return d;
}

export function newNotFound(gr: GroupResource, name: string): StatusError {
  return new NotFoundError(`${qualifiedResource(gr)} "${name}" not found`, details(gr, name));
}

export function newAlreadyExists(gr: GroupResource, name: string): StatusError {
  return new AlreadyExistsError(`${qualifiedResource(gr)} "${name}" already exists`, details(gr, name));
}

/** The name-generation collision error: upstream leaves the group out and asks the client to retry. */
export function newGenerateNameConflict(gr: GroupResource, name: string): StatusError {
  return new AlreadyExistsError(
    `${gr.resource} "${name}" already exists, the server was not able to generate a unique name for the object`,
    { name, kind: gr.resource, retryAfterSeconds: 1 },
  );
}

export function newConflict(gr: GroupResource, name: string, reason: string): StatusError {
  return new ConflictError(`Operation cannot be fulfilled on ${qualifiedResource(gr)} "${name}": ${reason}`, details(gr, name));
}

export const OPTIMISTIC_LOCK_MESSAGE = 'the object has been modified; please apply your changes to the latest version and try again';

/**
 * Invalid for an object. `kind` is the internal kind (`Event`): upstream validates internal objects, so the
 * qualified kind has an empty group and the details carry no group.
 */
export function newInvalid(kind: { group: string; kind: string }, name: string, errs: FieldError[]): StatusError {
  const qualifiedKind = kind.group ? `${kind.kind}.${kind.group}` : kind.kind;
  const causes = errs.map((e) => ({ reason: e.type, message: e.body(), field: e.field }));
  const d: StatusDetails = {};
  if (name) d.name = name;
  if (kind.group) d.group = kind.group;
  d.kind = kind.kind;
  d.causes = causes;
  return new InvalidError(`${qualifiedKind} "${name}" is invalid: ${aggregateText(errs)}`, d);
}

/** Invalid for request options, e.g. `ListOptions.meta.k8s.io "" is invalid: ...`. */
export function newInvalidOptions(optionsKind: string, errs: FieldError[]): StatusError {
  return newInvalid({ group: 'meta.k8s.io', kind: optionsKind }, '', errs);
}

export function newBadRequest(message: string): StatusError {
  return new BadRequestError(message);
}

export function newMethodNotAllowed(): StatusError {
  return new MethodNotAllowedError('the server does not allow this method on the requested resource', {});
}

export function newNotFoundPath(): StatusError {
  return new NotFoundError('the server could not find the requested resource', {});
}

export function newNotAcceptable(accepted: string[]): StatusError {
  return new NotAcceptableError(`only the following media types are accepted: ${accepted.join(', ')}`);
}

export function newUnsupportedMediaType(accepted: string[]): StatusError {
  return new UnsupportedMediaTypeError(
    `the body of the request was in an unknown format - accepted media types include: ${accepted.join(', ')}`,
  );
}

export function newRequestEntityTooLarge(message: string): StatusError {
  return new RequestEntityTooLargeError(message);
}

export function newResourceExpired(message: string, continueToken?: string): StatusError {
  return new ExpiredError(message, undefined, continueToken ? { continue: continueToken } : {});
}

export function newUnauthorized(message = 'Unauthorized'): StatusError {
  return new UnauthorizedError(message);
}

export function newForbidden(gr: GroupResource, name: string, reason: string): StatusError {
  const what = name ? `${qualifiedResource(gr)} "${name}"` : qualifiedResource(gr);
  return new ForbiddenError(`${what} is forbidden: ${reason}`, details(gr, name));
}

export function newInternalError(err: unknown): StatusError {
  const text = err instanceof Error ? err.message : String(err);
  return new InternalError(`Internal error occurred: ${text}`, { causes: [{ message: text }] });
}

/**
 * The Status upstream's cacher ends a watch with for a plain error (its errWatcher): InternalError with the error's
 * text as is, not wrapped as newInternalError wraps it.
 */
export function newWatchInternalError(message: string): StatusError {
  return new InternalError(message);
}

/** An error upstream returns without a reason (a plain Go error): 500 with the raw text. */
export function newUnclassified(message: string): StatusError {
  return new UnknownError(message);
}

export function newTooManyRequests(message: string, retryAfterSeconds: number): StatusError {
  return new TooManyRequestsError(message, { retryAfterSeconds });
}

export function newTimeout(message: string, retryAfterSeconds: number, causes?: StatusCause[]): StatusError {
  const d: StatusDetails = {};
  if (causes) d.causes = causes;
  if (retryAfterSeconds > 0) d.retryAfterSeconds = retryAfterSeconds;
  return new TimeoutError(`Timeout: ${message}`, d);
}

export function newTooLargeResourceVersion(requested: number, current: number): StatusError {
  return newTimeout(`Too large resource version: ${requested}, current: ${current}`, 1, [
    { reason: 'ResourceVersionTooLarge', message: 'Too large resource version' },
  ]);
}

export function newServiceUnavailable(message: string): StatusError {
  return new ServiceUnavailableError(message);
}
