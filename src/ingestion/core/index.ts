/**
 * Pure cores of event ingestion. Typical use by a capture route and the worker:
 *
 *   decodeBody → extractEvents → (per event) resolveSentAt + computeEventTimestamp,
 *   decidePersonProcessing → normalizePersonProperties → applyGeoipProperties
 *   → extractPersonPropertyUpdate → detectMergeRequest / decideMerge → applyPersonPropertyUpdate.
 */
export * from './types.js';
export * from './decode-body.js';
export * from './extract.js';
export * from './timestamps.js';
export * from './person-properties.js';
export * from './merge-rules.js';
export * from './geoip-properties.js';
export * from './uuid.js';
