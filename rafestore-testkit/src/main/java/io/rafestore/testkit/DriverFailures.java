package io.rafestore.testkit;

import io.rafestore.spi.CloudException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/** Helpers for driver tests that check how a request fails. */
public final class DriverFailures {
  private DriverFailures() {}

  /**
   * The {@link CloudException} that {@code request} fails with, waiting up to 60 s.
   *
   * @throws AssertionError if it succeeds, or fails with anything but a {@link CloudException}
   */
  public static CloudException failure(CompletableFuture<?> request) throws Exception {
    try {
      request.get(60, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof CloudException ce) {
        return ce;
      }
      throw new AssertionError("expected a CloudException, got " + e.getCause(), e.getCause());
    }
    throw new AssertionError("expected the request to fail, it succeeded");
  }
}
