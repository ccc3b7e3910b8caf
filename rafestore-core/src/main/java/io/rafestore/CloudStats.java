package io.rafestore;

import java.util.Objects;

/**
 * What one cloud has been asked to do so far, as counted by the client around its driver: the
 * numbers the benchmarks and the cost model read. A snapshot; counters only grow.
 *
 * @param cloudId the cloud
 * @param puts put requests started
 * @param gets get requests started (ranged or not)
 * @param deletes delete requests started
 * @param lists list requests started
 * @param bytesUp payload bytes sent to the cloud (puts)
 * @param bytesDown payload bytes received from the cloud (gets)
 * @param cancelled requests cancelled by the client because the protocol no longer needed them
 * @param errors requests that failed (not counting cancelled ones)
 */
public record CloudStats(
    String cloudId,
    long puts,
    long gets,
    long deletes,
    long lists,
    long bytesUp,
    long bytesDown,
    long cancelled,
    long errors) {

  public CloudStats {
    Objects.requireNonNull(cloudId, "cloudId");
  }

  /** All requests started, of every kind. */
  public long requests() {
    return puts + gets + deletes + lists;
  }

  /** The difference {@code this - earlier}, for measuring one phase of a run. */
  public CloudStats minus(CloudStats earlier) {
    if (!cloudId.equals(earlier.cloudId)) {
      throw new IllegalArgumentException(
          "cannot subtract stats of cloud " + earlier.cloudId + " from " + cloudId);
    }
    return new CloudStats(
        cloudId,
        puts - earlier.puts,
        gets - earlier.gets,
        deletes - earlier.deletes,
        lists - earlier.lists,
        bytesUp - earlier.bytesUp,
        bytesDown - earlier.bytesDown,
        cancelled - earlier.cancelled,
        errors - earlier.errors);
  }
}
