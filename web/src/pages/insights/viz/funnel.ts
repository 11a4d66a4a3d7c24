/** A funnel's answer as the views show it: one list of steps per breakdown value (or one in all). */
import type { FunnelStepResult } from '../../../api/insights';
import { breakdownLabel } from './format';

export interface FunnelGroup {
  key: string;
  /** The breakdown value in words; null without a breakdown. */
  label: string | null;
  /** The breakdown value as the answer gives it (`["Chrome"]`); absent without a breakdown. */
  breakdown?: string[];
  steps: FunnelStepResult[];
}

export function funnelGroups(results: FunnelStepResult[] | FunnelStepResult[][]): FunnelGroup[] {
  if (results.length === 0) return [];
  if (!Array.isArray(results[0])) return [{ key: 'all', label: null, steps: results as FunnelStepResult[] }];
  return (results as FunnelStepResult[][]).map((steps, i) => {
    const value = steps[0]?.breakdown_value?.[0];
    const breakdown = steps[0]?.breakdown_value;
    return { key: `${i}:${value ?? ''}`, label: breakdownLabel(value), ...(breakdown ? { breakdown } : {}), steps };
  });
}

export const stepName = (step: FunnelStepResult): string => step.custom_name ?? step.name;
