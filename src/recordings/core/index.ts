/** Pure cores of session recordings, sessions and web vitals (no I/O). */
export * from './rrweb.js';
export * from './snapshot-event.js';
export * from './metadata.js';
export * from './recording-summary.js';
export * from './web-vitals.js';
export * from './session-properties.js';
export * from './session-property-definitions.js';
export * from './session-values.js';
