package io.rafestore;

/**
 * What a cloud holds for a RafeStore client (the paper's Table 2 arrangements).
 *
 * <p>Every cloud keeps metadata (the n >= 3f+1 metadata quorum); data clouds also keep values. The
 * first f+1 data clouds in expected-latency order receive each value (writeDo); the others are the
 * extras that writeDf adds when one of them does not answer in time.
 */
public enum CloudRole {
  /** Holds values and metadata. */
  DATA_AND_METADATA,
  /** Holds metadata only: a small or expensive store, such as a local Redis (Hypothesis 2). */
  METADATA_ONLY;

  /** Whether this role stores values. */
  public boolean holdsData() {
    return this == DATA_AND_METADATA;
  }
}
