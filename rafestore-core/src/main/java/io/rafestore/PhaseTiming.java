package io.rafestore;

import java.time.Duration;
import java.util.Objects;

/**
 * When one phase of an operation ran, on the client's scheduler: the offsets of its start and end
 * from the start of the operation. A phase that did not end (the operation failed or no longer
 * needed it) ends when the operation did.
 *
 * @param phase the phase
 * @param start from the operation's start to the phase's start ({@code >= 0})
 * @param duration how long the phase ran ({@code >= 0})
 */
public record PhaseTiming(Phase phase, Duration start, Duration duration) {
  public PhaseTiming {
    Objects.requireNonNull(phase, "phase");
    Objects.requireNonNull(start, "start");
    Objects.requireNonNull(duration, "duration");
    if (start.isNegative() || duration.isNegative()) {
      throw new IllegalArgumentException(
          "phase start and duration must be >= 0, were " + start + " and " + duration);
    }
  }

  /** From the operation's start to the phase's end. */
  public Duration end() {
    return start.plus(duration);
  }
}
