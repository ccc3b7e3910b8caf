package io.rafestore;

import java.util.List;

/**
 * No cloud returned bytes matching the signed metadata of the version asked for: every holder was
 * missing, corrupt or unreachable. RafeStore never returns unverified bytes; with at most f faulty
 * clouds this cannot happen for a completed write, so it means more than f clouds failed.
 */
public class IntegrityException extends RafeStoreException {
  private static final long serialVersionUID = 1L;
  private final transient List<CloudFault> faults;

  public IntegrityException(String message, List<CloudFault> faults) {
    super(message + "; cloud faults: " + faults);
    this.faults = List.copyOf(faults);
  }

  /** What each holder did. */
  public List<CloudFault> faults() {
    return faults;
  }
}
