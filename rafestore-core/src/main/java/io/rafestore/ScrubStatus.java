package io.rafestore;

import java.util.Objects;
import java.util.Optional;

/**
 * Where a background {@link Scrubber} is and what it has found, done and spent. The counters are
 * kept in the scrubber's state file with its cursor, so they add up over restarts (from the first
 * start with that file, or since it was reset). A snapshot; immutable.
 *
 * @param state what the scrubber is doing
 * @param pass the pass it is in, from 1
 * @param cursor the last key it finished in this pass (it goes on after it); empty at the start of
 *     a pass
 * @param keysThisPass keys finished in this pass
 * @param keysChecked keys finished, over every pass
 * @param passesCompleted passes finished
 * @param damageFound problems verify found ({@link VerifyReport.Finding}s)
 * @param repaired copies repair put back
 * @param repairFailed copies repair could not put back
 * @param oneFaultFromLoss versions found one fault from loss (counted each time one is found)
 * @param lost versions found lost (counted each time one is found)
 * @param requests requests the scrubber sent
 * @param egressBytes bytes it downloaded
 * @param dollars what those cost, priced per cloud ({@link Pricing})
 * @param note why the scrubber started afresh (a state file it could not use) or what last went
 *     wrong with a walk it then resumed; empty if nothing
 */
public record ScrubStatus(
    State state,
    long pass,
    Optional<String> cursor,
    long keysThisPass,
    long keysChecked,
    long passesCompleted,
    long damageFound,
    long repaired,
    long repairFailed,
    long oneFaultFromLoss,
    long lost,
    long requests,
    long egressBytes,
    double dollars,
    Optional<String> note) {

  /** What a scrubber is doing. */
  public enum State {
    /** Not started yet. */
    NEW,
    /** Walking the keys. */
    RUNNING,
    /** Waiting for the next pass ({@link ScrubOptions#pauseBetweenPasses}). */
    PAUSED,
    /** Ended by {@link Scrubber#stop} or by closing the client. */
    STOPPED,
    /** Ended by itself after its {@link ScrubOptions#passes}. */
    DONE
  }

  public ScrubStatus {
    Objects.requireNonNull(state, "state");
    Objects.requireNonNull(cursor, "cursor");
    Objects.requireNonNull(note, "note");
  }

  @Override
  public String toString() {
    return String.format(
        "scrub %s, pass %d (%d keys, after %s), %d keys in all, %d passes done; %d problems found,"
            + " %d repaired, %d not repaired, %d one fault from loss, %d lost; spent %d requests,"
            + " %d bytes, $%.6f%s",
        state.name().toLowerCase(java.util.Locale.ROOT),
        pass,
        keysThisPass,
        cursor.map(k -> "'" + k + "'").orElse("the start"),
        keysChecked,
        passesCompleted,
        damageFound,
        repaired,
        repairFailed,
        oneFaultFromLoss,
        lost,
        requests,
        egressBytes,
        dollars,
        note.map(n -> "; " + n).orElse(""));
  }
}
