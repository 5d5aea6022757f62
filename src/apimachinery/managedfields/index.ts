/**
 * Server-side apply and managedFields as a library: the integrator calls `FieldManager.update` on every create,
 * update and non-apply patch, and `FieldManager.apply` for apply patches.
 */
export { FieldManager, type FieldManagerOptions, BEFORE_FIRST_APPLY } from './fieldmanager.ts';
export { managerFromUserAgent } from './useragent.ts';
export { LAST_APPLIED_ANNOTATION } from './lastapplied.ts';
export { FieldSet } from './fieldset.ts';
