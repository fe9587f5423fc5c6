/**
 * Request timeouts on the test's clock instead of the wall clock: an upstream attempt ends only when the test
 * says its time is up (the moment the stand-in or the proxy holds it, say), so no outcome depends on how fast
 * the machine is. Give `signal` to the upstream as its attemptSignal.
 */
export class AttemptClock {
  private live: AbortController[] = [];

  /** A signal for one attempt, aborted only by expire(). */
  readonly signal = (_ms: number): AbortSignal => {
    const controller = new AbortController();
    this.live.push(controller);
    return controller.signal;
  };

  /** Ends every attempt started so far with the error AbortSignal.timeout gives. */
  expire(): void {
    const reason = new DOMException('The operation was aborted due to timeout', 'TimeoutError');
    for (const controller of this.live.splice(0)) controller.abort(reason);
  }
}
