import { describe, expect, it } from 'vitest';
import { BatchSizer } from '../../src/ingestion/worker/batch-sizer.js';

describe('BatchSizer', () => {
  it('starts with a quarter of the largest batch, before anything was measured', () => {
    expect(new BatchSizer(1000, 25).nextSize).toBe(250);
  });

  it('sizes the next batch to the budget from what recent batches cost an event', () => {
    const sizer = new BatchSizer(1000, 25);
    sizer.record(250, 12.5); // 50 µs an event: 500 fit in 25 ms
    expect(sizer.nextSize).toBe(500);
    sizer.record(500, 5); // 10 µs: the average of the two (30 µs) lets 833 in
    expect(sizer.nextSize).toBe(833);
  });

  it('never goes above the largest batch, nor below the smallest', () => {
    const fast = new BatchSizer(1000, 25);
    fast.record(1000, 1);
    expect(fast.nextSize).toBe(1000);
    const slow = new BatchSizer(1000, 25);
    slow.record(10, 1000);
    expect(slow.nextSize).toBe(50);
  });

  it('keeps small largest batches whole', () => {
    const sizer = new BatchSizer(3, 25);
    expect(sizer.nextSize).toBe(3);
    sizer.record(3, 1000);
    expect(sizer.nextSize).toBe(3);
  });

  it('ignores batches that say nothing', () => {
    const sizer = new BatchSizer(1000, 25);
    sizer.record(0, 10);
    sizer.record(10, Number.NaN);
    expect(sizer.nextSize).toBe(250);
  });
});
