/**
 * PostHog's trends `display` values (ChartDisplayType) as Hoglet reads them: by interval, or one
 * total over the range. Imports nothing: the web app reads the same lists from here
 * (eslint.config.js allows it), to know which displays answer totals only.
 */

/** Computed by interval. */
export const SERIES_DISPLAYS: readonly string[] = ['ActionsLineGraph', 'ActionsBar', 'ActionsStackedBar', 'ActionsAreaGraph'];
/** Computed as one value a series (and breakdown value) over the whole range. */
export const TOTAL_DISPLAYS: readonly string[] = ['BoldNumber', 'ActionsPie', 'ActionsBarValue', 'ActionsTable', 'WorldMap'];
/** PostHog's, refused here. */
export const UNSUPPORTED_DISPLAYS: readonly string[] = ['CalendarHeatmap', 'BoxPlot'];
