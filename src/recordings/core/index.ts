/** Pure cores of session recordings, sessions and web vitals (no I/O). */
export * from './rrweb.js';
export * from './snapshot-event.js';
export * from './metadata.js';
export * from './web-vitals.js';
export * from './channel-type.js';
export * from './session-properties.js';
