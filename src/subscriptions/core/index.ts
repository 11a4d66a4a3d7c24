export * from './types.js';
export * from './datetime.js';
export * from './schedule.js';
export * from './summary.js';
export * from './validate.js';
