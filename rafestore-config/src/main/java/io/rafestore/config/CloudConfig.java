package io.rafestore.config;

import io.rafestore.CloudRole;
import io.rafestore.Pricing;
import io.rafestore.spi.CloudSpec;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * One cloud as configured: how to reach it, what it holds and how fast it is expected to be.
 * Immutable.
 *
 * @param spec how to reach the cloud ({@link io.rafestore.clouds.Drivers#create} makes its driver)
 * @param role whether it holds data and metadata or metadata only
 * @param expectedRtt the round-trip time hint that orders data clouds until measured, if given
 * @param line the line of the configuration file where the cloud is first mentioned
 * @param pricing what the cloud charges ({@code cloud.<id>.price} and {@code
 *     cloud.<id>.price.<field>}; by default its driver type's built-in table, {@link
 *     Pricing#forDriverType}, an assumption, not a quote)
 */
public record CloudConfig(
    CloudSpec spec, CloudRole role, Optional<Duration> expectedRtt, int line, Pricing pricing) {
  public CloudConfig {
    Objects.requireNonNull(spec, "spec");
    Objects.requireNonNull(role, "role");
    Objects.requireNonNull(expectedRtt, "expectedRtt");
    Objects.requireNonNull(pricing, "pricing");
  }

  /** A cloud priced at its driver type's built-in table ({@link Pricing#forDriverType}). */
  public CloudConfig(CloudSpec spec, CloudRole role, Optional<Duration> expectedRtt, int line) {
    this(spec, role, expectedRtt, line, Pricing.forDriverType(spec.type()));
  }

  /** The cloud id. */
  public String id() {
    return spec.id();
  }
}
