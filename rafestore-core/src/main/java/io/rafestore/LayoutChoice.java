package io.rafestore;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * What the layout chooser ({@link Layout#AUTO}) chose for one write, and why: the chosen candidate
 * with its predicted time and dollars, the best candidate of another layout (the runner-up), and a
 * short reason. Predictions come from the client's latency model and price table at the time of the
 * write (design.md, "The layout chooser"); the receipt's {@link WriteReceipt#latency()} is what
 * happened. Immutable.
 *
 * @param chosen the candidate written
 * @param runnerUp the best candidate of another kind or k (empty if no other was possible)
 * @param objective the objective the candidates were ranked by
 * @param reason one line saying why, for logs and receipts
 */
public record LayoutChoice(
    Candidate chosen, Optional<Candidate> runnerUp, Objective objective, String reason) {

  public LayoutChoice {
    Objects.requireNonNull(chosen, "chosen");
    Objects.requireNonNull(runnerUp, "runnerUp");
    Objects.requireNonNull(objective, "objective");
    Objects.requireNonNull(reason, "reason");
  }

  /** The kinds of layout the chooser picks among. */
  public enum Kind {
    /** The value inside the writer's signed log: no data object. */
    INLINE,
    /** f+1 whole copies (in parts above the part size). */
    WHOLE,
    /**
     * k data and f parity fragments on k+f clouds (each part coded on its own above the part size).
     */
    CODED
  }

  /**
   * One layout the chooser considered.
   *
   * @param kind inline, whole copies or fragments
   * @param k fragments that rebuild the value (0 unless {@link Kind#CODED})
   * @param clouds the data clouds it puts the value on, in slot order (fragment i on
   *     clouds.get(i)); empty for {@link Kind#INLINE}
   * @param predictedTime the write's predicted duration
   * @param predictedUsd the predicted dollars of the write, one read and one month of storage
   */
  public record Candidate(
      Kind kind, int k, List<String> clouds, Duration predictedTime, double predictedUsd) {
    public Candidate {
      Objects.requireNonNull(kind, "kind");
      clouds = List.copyOf(clouds);
      Objects.requireNonNull(predictedTime, "predictedTime");
      if (k < 0 || (kind == Kind.CODED) != (k > 0)) {
        throw new IllegalArgumentException("k must be > 0 exactly for CODED, was " + k);
      }
    }

    /** For example {@code CODED k=2 on [p0, p1, p2]: 3597 ms, $0.0000123}. */
    @Override
    public String toString() {
      return kind
          + (kind == Kind.CODED ? " k=" + k : "")
          + (clouds.isEmpty() ? "" : " on " + clouds)
          + String.format(
              java.util.Locale.ROOT, ": %d ms, $%.7f", predictedTime.toMillis(), predictedUsd);
    }
  }
}
