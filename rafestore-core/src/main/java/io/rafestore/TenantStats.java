package io.rafestore;

import java.time.Duration;
import java.util.Objects;

/**
 * What one tenant ({@link RafeStore#forTenant}) did since the client was built, summed over all
 * clouds: {@link RafeStore#tenantStats()}.
 *
 * <p>Operations are the tenant's calls on the client (write, read, delete, ...), counted and timed
 * as they end; latency percentiles come from a bounded histogram of logarithmic buckets (each
 * percentile is the upper edge of its bucket, within about 19 % of the true value). Requests and
 * bytes are the cloud requests made on the tenant's behalf (its operations' and the background work
 * they caused: write-back uploads, prefetches).
 *
 * @param tenant the tenant id
 * @param operations operations ended (successfully or not)
 * @param failures operations that ended with an error
 * @param bytesRead payload bytes the tenant's requests received from clouds
 * @param bytesWritten payload bytes the tenant's requests sent to clouds
 * @param p50 median operation latency (zero before any operation)
 * @param p90 90th percentile operation latency
 * @param p99 99th percentile operation latency
 * @param requests cloud requests made on the tenant's behalf
 * @param costUnits the requests' cost units served ({@code 1 + bytes / }{@link
 *     Fairness#costUnitBytes()} each; 64 KiB units when fairness is off)
 * @param receivedShare this tenant's cost units over all tenants' cost units, over all clouds, in
 *     [0, 1] (0 before any request)
 * @param queueWait total time the tenant's requests waited in the fair queues (zero when fairness
 *     is off)
 */
public record TenantStats(
    String tenant,
    long operations,
    long failures,
    long bytesRead,
    long bytesWritten,
    Duration p50,
    Duration p90,
    Duration p99,
    long requests,
    double costUnits,
    double receivedShare,
    Duration queueWait) {
  public TenantStats {
    Objects.requireNonNull(tenant, "tenant");
    Objects.requireNonNull(p50, "p50");
    Objects.requireNonNull(p90, "p90");
    Objects.requireNonNull(p99, "p99");
    Objects.requireNonNull(queueWait, "queueWait");
  }
}
