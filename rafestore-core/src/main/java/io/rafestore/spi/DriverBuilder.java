package io.rafestore.spi;

import java.time.Duration;

/**
 * What every driver's builder shares: the cloud id and the two network timeouts, with one set of
 * checks and messages. A driver's builder extends it and adds its own settings; {@link
 * #checkCommon()} belongs at the start of its {@code build()}. Not thread-safe.
 *
 * @param <B> the concrete builder, returned by the setters for chaining
 */
public abstract class DriverBuilder<B extends DriverBuilder<B>> {
  private final String id;
  private Duration connectTimeout = Duration.ofSeconds(5);
  private Duration readTimeout;

  /**
   * A builder for the cloud {@code id}.
   *
   * @param defaultReadTimeout this driver's read timeout unless set
   */
  protected DriverBuilder(String id, Duration defaultReadTimeout) {
    this.id = id;
    this.readTimeout = defaultReadTimeout;
  }

  /** This builder, typed. */
  protected abstract B self();

  /** TCP connect timeout, positive. Default 5 s. */
  public B connectTimeout(Duration value) {
    this.connectTimeout = value;
    return self();
  }

  /**
   * Longest wait for a response, or for its next bytes while it streams, positive. The default is
   * the driver's (see its builder's documentation).
   */
  public B readTimeout(Duration value) {
    this.readTimeout = value;
    return self();
  }

  /** The cloud id. */
  public String id() {
    return id;
  }

  /** The connect timeout set so far. */
  public Duration connectTimeout() {
    return connectTimeout;
  }

  /** The read timeout set so far. */
  public Duration readTimeout() {
    return readTimeout;
  }

  /**
   * Checks the shared settings.
   *
   * @throws IllegalArgumentException naming the setting: a blank id, a missing, zero, negative or
   *     over-24-day timeout
   */
  protected void checkCommon() {
    if (id == null || id.isBlank()) {
      throw new IllegalArgumentException("id must not be blank");
    }
    checkPositive("connectTimeout", connectTimeout);
    checkPositive("readTimeout", readTimeout);
  }

  /**
   * Checks that {@code value} is in [{@code min}, {@code max}].
   *
   * @throws IllegalArgumentException naming the setting, its range and the value
   */
  protected static void checkRange(String name, long value, long min, long max) {
    if (value < min || value > max) {
      throw new IllegalArgumentException(
          name + " must be in [" + min + ", " + max + "], was " + value);
    }
  }

  private static void checkPositive(String name, Duration value) {
    // The upper bound is what SDKs that take int milliseconds accept.
    if (value == null
        || value.isZero()
        || value.isNegative()
        || value.compareTo(Duration.ofMillis(Integer.MAX_VALUE)) > 0) {
      throw new IllegalArgumentException(
          name + " must be positive and under 24 days, was " + value);
    }
  }
}
