/**
 * A pause a background loop takes between polls, which `wake` ends at once (new work arrived, or
 * the loop is stopping).
 */
export class WakeableSleep {
  private sleeper: { timer: NodeJS.Timeout; resolve: () => void } | undefined;

  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      this.sleeper = { timer: setTimeout(() => ((this.sleeper = undefined), resolve()), ms), resolve };
    });
  }

  wake(): void {
    if (!this.sleeper) return;
    clearTimeout(this.sleeper.timer);
    this.sleeper.resolve();
    this.sleeper = undefined;
  }
}
