/** The codec's public surface: schema-driven decoding and Go-compatible encoding of API objects. */
export type { DecodeResult, FieldValidation } from './types.ts';
export { decodeBody, convertValue, strictDecodingError, cannotHandle } from './decode.ts';
export { encode, canonicalize, goJSON, prettyJSON, toYAML } from './encode.ts';
export { ResourceVersionSpliceError, spliceResourceVersion, stripResourceVersion } from './resource-version-splice.ts';
export { parseMicroTime, parseTime, formatMicroTime, formatTime, TimeParseError } from './time.ts';
