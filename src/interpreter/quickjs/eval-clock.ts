/**
 * Time an eval has used against its limit. It runs while guest code executes and while the guest
 * waits on nothing but itself (its own promises, timers); it pauses while a tool call or subagent
 * is in flight and no guest code runs, because those have their own limits and a subagent takes
 * minutes, not seconds.
 */
export class EvalClock {
  private used = 0;
  private since: number | null;
  private guestDepth = 0;
  private hostCalls = 0;

  constructor(private readonly now: () => number) {
    this.since = now();
  }

  elapsed(): number {
    return this.used + (this.since === null ? 0 : this.now() - this.since);
  }

  get hostCallsInFlight(): number {
    return this.hostCalls;
  }

  guestEnter(): void {
    this.change(() => (this.guestDepth += 1));
  }

  guestExit(): void {
    this.change(() => (this.guestDepth -= 1));
  }

  hostCallStarted(): void {
    this.change(() => (this.hostCalls += 1));
  }

  hostCallEnded(): void {
    this.change(() => (this.hostCalls -= 1));
  }

  private counting(): boolean {
    return this.guestDepth > 0 || this.hostCalls === 0;
  }

  private change(apply: () => void): void {
    const before = this.counting();
    apply();
    const after = this.counting();
    if (before && !after && this.since !== null) {
      this.used += this.now() - this.since;
      this.since = null;
    } else if (!before && after) {
      this.since = this.now();
    }
  }
}
