package io.rafestore;

import java.io.IOException;

/**
 * Root of every failure RafeStore reports. It is an {@link IOException} because every operation
 * ends in network or disk I/O; subclasses carry what a caller needs to act on the failure (which
 * clouds failed and how, which quorum was not reached, which cloud served bad bytes).
 *
 * <p>Asynchronous operations complete their future exceptionally with one of these (possibly
 * wrapped in a {@link java.util.concurrent.CompletionException}); the blocking facade throws it
 * unwrapped.
 */
public class RafeStoreException extends IOException {
  private static final long serialVersionUID = 1L;

  public RafeStoreException(String message) {
    super(message);
  }

  public RafeStoreException(String message, Throwable cause) {
    super(message, cause);
  }
}
