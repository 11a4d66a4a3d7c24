export * from './types.js';
export * from '../../posthog/drf-datetime.js';
export * from './schedule.js';
export * from './summary.js';
export * from './validate.js';
export { maskUrl } from './targets.js';
export * from './outbound-address.js';
