/**
 * Chart.js, tree-shaken: only the controllers, elements and scales the insight charts draw with
 * are registered. Imported only from pages/insights/**, so it lands in the insight chunks.
 */
import type { ScaleOptions } from 'chart.js';
import {
  ArcElement,
  BarController,
  BarElement,
  CategoryScale,
  Chart,
  LinearScale,
  LineController,
  LineElement,
  PieController,
  PointElement,
  Tooltip,
} from 'chart.js';

Chart.register(
  LineController,
  BarController,
  PieController,
  LineElement,
  BarElement,
  ArcElement,
  PointElement,
  CategoryScale,
  LinearScale,
  Tooltip,
);

export { Chart };

/** Series colours, in order (PostHog's first few). */
export const COLOURS = ['#1d4aff', '#621da6', '#42827e', '#ce0e74', '#f14f58', '#7c440e', '#529a0a', '#0476fb', '#fe729e', '#35416b'];

export const colourOf = (index: number): string => COLOURS[index % COLOURS.length]!;

/** A chart over time (one point per interval): sized by its box, drawn at once, a tooltip for every series at the hovered interval. */
export const overTimeOptions = (y: ScaleOptions<'linear'>) => ({
  responsive: true,
  maintainAspectRatio: false,
  animation: false as const,
  interaction: { mode: 'index' as const, intersect: false },
  scales: { y },
});
