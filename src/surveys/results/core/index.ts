export * from './types.js';
export * from './summary.js';
export * from './range.js';
export * from './stats.js';
