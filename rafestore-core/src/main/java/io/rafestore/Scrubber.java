package io.rafestore;

import java.util.concurrent.CompletableFuture;

/**
 * A background scrub of the whole store ({@link RafeStore#scrubber}): it walks every key, a page of
 * the key listing at a time, verifies each (metadata on every cloud, and data with ranged reads of
 * each part, so a large value is never held whole) and, unless {@link ScrubOptions#dryRun}, repairs
 * what it finds, as {@link RafeStore#repair} does. It reports through {@link #status}, {@link
 * RafeStoreListener#scrubEvent} (one event per finding, repair and version at risk) and the
 * per-cloud scrub counters of {@link RafeStore#stats}.
 *
 * <p><b>Budget and priority.</b> It spends at most the budgets of its {@link ScrubOptions}
 * (requests, egress and dollars per hour), sends at most one request at a time to each cloud, and
 * gives way to the client's foreground operations (up to {@link ScrubOptions#MAX_YIELD} per
 * request). It never delays a foreground operation itself.
 *
 * <p><b>Restarts.</b> With a {@link ScrubOptions#stateFile}, it writes its cursor (the last key
 * finished) and counters atomically after each key, and a new scrubber with the same file goes on
 * after that key. The file only says where to resume: what is correct is decided by verify against
 * what trusted writers signed, never by the file, so a lost, stale or edited file can make the
 * scrubber check keys again or skip some until its next pass, never accept wrong data. A file it
 * cannot read is reported ({@link ScrubStatus#note}, a {@link ScrubEvent.Kind#STATE_RESET} event)
 * and the scrub starts from the first key.
 *
 * <p><b>Fault model.</b> That of {@link RafeStore#verify} and {@link RafeStore#repair}: up to f
 * faulty clouds; repair only copies or rebuilds what trusted writers signed. A cloud that does not
 * answer is reported for the key and the walk goes on.
 *
 * <p>Thread-safe. Closing the client stops its scrubbers.
 */
public interface Scrubber {
  /**
   * Starts the scrub (again: the same future if it is running). The future completes with the final
   * status when the scrub ends: after {@link ScrubOptions#passes} passes, on {@link #stop}, or when
   * the client is closed; it fails only if the state file cannot be written.
   */
  CompletableFuture<ScrubStatus> start();

  /**
   * Stops the scrub at once: the request in flight is cancelled and the key in progress will be
   * checked again by the next scrub with the same state file. Completes with the final status.
   */
  CompletableFuture<ScrubStatus> stop();

  /** What the scrubber is doing, has found, done and spent so far. */
  ScrubStatus status();

  /** The options it runs with. */
  ScrubOptions options();
}
