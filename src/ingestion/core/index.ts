/**
 * Pure cores of event ingestion. Typical use by a capture route and the worker:
 *
 *   (sdk/decode-body.ts) decodeBody → extractEvents → (per event) routeEvent → resolveSentAt + computeEventTimestamp,
 *   decidePersonProcessing → normalizePersonProperties → addRequestContext → applyGeoipProperties
 *   → extractPersonPropertyUpdate → detectMergeRequest / decideMerge → applyPersonPropertyUpdate,
 *   and applyPersonModeToProperties for what is stored.
 */
export * from './types.js';
export * from './extract.js';
export * from './timestamps.js';
export * from './person-properties.js';
export * from './person-property-changes.js';
export * from './merge-rules.js';
export * from './geoip-properties.js';
export * from './geoip-json.js';
export * from './event-normalization.js';
export * from './uuid.js';
