/** Shared codec types. */

/** The `fieldValidation` query parameter values (empty defaults to Warn; the caller maps it). */
export type FieldValidation = 'Ignore' | 'Warn' | 'Strict';

export interface DecodeResult {
  /** The canonical object: schema order, empty optional fields omitted, always-emitted ones present, times normalized. */
  object: Record<string, unknown>;
  /**
   * Strict-mode problems in document order, one per Warning header: `unknown field "metadata.foo"`,
   * `duplicate field "note"`, and for YAML bodies `line 3: key "note" already set in map`.
   */
  problems: string[];
  /**
   * The same problems as they join into a Strict error (pass to strictDecodingError). Equal to `problems`
   * for JSON; for YAML the repeated keys are one go-yaml error `yaml: unmarshal errors:\n  line 3: …`.
   */
  strictProblems: string[];
}
