export * from './types.js';
export * from '../../lib/drf-datetime.js';
export * from './schedule.js';
export * from './summary.js';
export * from './validate.js';
export { maskUrl } from './targets.js';
