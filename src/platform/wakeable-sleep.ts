/**
 * A pause a background loop takes between polls, which `wake` ends at once (new work arrived, or
 * the loop is stopping). A wake that comes while the loop is not sleeping (it is busy with a
 * round, which may have looked for work before that work arrived) is kept: the next pause ends
 * at once. Otherwise that work would wait for the next poll.
 */
export class WakeableSleep {
  private sleeper: { timer: NodeJS.Timeout; resolve: () => void } | undefined;
  private woken = false;

  sleep(ms: number): Promise<void> {
    if (this.woken) {
      this.woken = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      this.sleeper = { timer: setTimeout(() => ((this.sleeper = undefined), resolve()), ms), resolve };
    });
  }

  wake(): void {
    if (!this.sleeper) {
      this.woken = true;
      return;
    }
    clearTimeout(this.sleeper.timer);
    this.sleeper.resolve();
    this.sleeper = undefined;
  }
}
