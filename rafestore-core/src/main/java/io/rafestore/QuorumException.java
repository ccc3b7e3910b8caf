package io.rafestore;

import java.util.List;

/**
 * A phase could not gather the replies it needs: more than f clouds failed or misbehaved. The
 * operation had no effect that readers can observe as a completed write (a partial write leaves no
 * metadata quorum, or leaves a version that readers may or may not see, as for any write that did
 * not complete).
 */
public class QuorumException extends RafeStoreException {
  private static final long serialVersionUID = 1L;
  private final String phase;
  private final int needed;
  private final int got;
  private final transient List<CloudFault> faults;

  public QuorumException(String phase, int needed, int got, List<CloudFault> faults) {
    super(
        phase
            + " needed "
            + needed
            + " valid replies but got "
            + got
            + "; cloud faults: "
            + faults);
    this.phase = phase;
    this.needed = needed;
    this.got = got;
    this.faults = List.copyOf(faults);
  }

  /** The protocol phase that failed (writeDo/writeDf, readM, writeM, read data). */
  public String phase() {
    return phase;
  }

  /** Replies the phase needed. */
  public int needed() {
    return needed;
  }

  /** Valid replies it got. */
  public int got() {
    return got;
  }

  /** What each failed cloud did. */
  public List<CloudFault> faults() {
    return faults;
  }
}
