/**
 * Cohort filters the tests share. Imports nothing, so the web app's own tests (test/web/app/,
 * checked with the app's compiler settings) can use it too.
 */

/** PostHog's "performed $pageview in the last 30 days": a behavioral filter, which membership never matches here. */
export const PERFORMED_PAGEVIEW = {
  key: '$pageview',
  type: 'behavioral',
  value: 'performed_event',
  event_type: 'events',
  time_value: 30,
  time_interval: 'day',
};
