/**
 * A line chart of an insight's trends result, drawn as SVG and rasterised to PNG with resvg, so
 * e-mails carry an image without a headless browser (PostHog screenshots its web page instead).
 */
import { createRequire } from 'node:module';
import type { TrendsResult } from '../insights/trends-results.js';

const WIDTH = 720;
const HEIGHT = 360;
const PAD = { left: 56, right: 16, top: 24, bottom: 72 };
const COLORS = ['#1d4aff', '#f7a501', '#29dbbb', '#ed3bc1', '#8567ff', '#f04f58', '#52c41a', '#a46c2c'];
const MAX_SERIES = COLORS.length;

function escapeXml(text: string): string {
  return text.replace(/[<>&'"]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', "'": '&apos;', '"': '&quot;' })[c]!);
}

/** A round axis maximum (1, 2 or 5 times a power of ten) at or above the largest value. */
function niceMax(value: number): number {
  if (value <= 0) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  return [1, 2, 5, 10].map((m) => m * power).find((m) => m >= value)!;
}

export function chartSvg(title: string, results: readonly TrendsResult[]): string {
  const series = results.slice(0, MAX_SERIES);
  const labels = series[0]?.labels ?? [];
  const max = niceMax(Math.max(0, ...series.flatMap((s) => s.data)));
  const plotW = WIDTH - PAD.left - PAD.right;
  const plotH = HEIGHT - PAD.top - PAD.bottom;
  const x = (i: number) => PAD.left + (labels.length <= 1 ? plotW / 2 : (i * plotW) / (labels.length - 1));
  const y = (v: number) => PAD.top + plotH - (v / max) * plotH;
  const parts: string[] = [
    `<rect width="${WIDTH}" height="${HEIGHT}" fill="#ffffff"/>`,
    `<text x="${PAD.left}" y="16" font-family="sans-serif" font-size="13" font-weight="bold" fill="#111">${escapeXml(title)}</text>`,
  ];
  for (let i = 0; i <= 4; i++) {
    const v = (max * i) / 4;
    parts.push(
      `<line x1="${PAD.left}" x2="${WIDTH - PAD.right}" y1="${y(v)}" y2="${y(v)}" stroke="#e5e7eb"/>`,
      `<text x="${PAD.left - 6}" y="${y(v) + 4}" text-anchor="end" font-family="sans-serif" font-size="10" fill="#555">${Number(v.toFixed(2))}</text>`,
    );
  }
  // At most ~10 axis labels, so they stay readable.
  const step = Math.max(1, Math.ceil(labels.length / 10));
  labels.forEach((label, i) => {
    if (i % step) return;
    parts.push(
      `<text x="${x(i)}" y="${PAD.top + plotH + 14}" text-anchor="middle" font-family="sans-serif" font-size="10" fill="#555">${escapeXml(label)}</text>`,
    );
  });
  series.forEach((s, n) => {
    const color = COLORS[n]!;
    const points = s.data.map((v, i) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(' ');
    parts.push(`<polyline fill="none" stroke="${color}" stroke-width="2" points="${points}"/>`);
    const ly = HEIGHT - PAD.bottom + 34 + Math.floor(n / 2) * 14;
    const lx = PAD.left + (n % 2) * (plotW / 2);
    parts.push(
      `<rect x="${lx}" y="${ly - 8}" width="10" height="10" fill="${color}"/>`,
      `<text x="${lx + 14}" y="${ly + 1}" font-family="sans-serif" font-size="11" fill="#111">${escapeXml(s.label)} (${s.aggregated_value ?? s.count})</text>`,
    );
  });
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}">${parts.join('')}</svg>`;
}

export function chartPng(title: string, results: readonly TrendsResult[]): Buffer {
  // Loaded with the first chart, not by every start (a native module, slow to load).
  const { Resvg } = createRequire(import.meta.url)('@resvg/resvg-js') as typeof import('@resvg/resvg-js');
  const resvg = new Resvg(chartSvg(title, results), { font: { loadSystemFonts: true, defaultFontFamily: 'DejaVu Sans' } });
  return Buffer.from(resvg.render().asPng());
}
