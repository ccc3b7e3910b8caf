package io.rafestore.spi.support;

/**
 * What cancelling one HTTP request does in a driver: abort it, or let it finish and drop the result
 * (both allowed by {@code CloudDriver}'s cancellation contract).
 *
 * <p>Why: an HTTP/1.1 client cannot return a connection to its pool while an exchange on it is half
 * done, so aborting a request closes its connection; the next request opens a new one (TCP
 * handshake, and TLS on a real cloud) and the closed one lingers in TIME_WAIT. The protocol cancels
 * requests routinely (readM beyond its quorum, hedged reads' losers), nearly all of them small;
 * measured over 10,000 operations on the emulators, aborting each one churned thousands of
 * connections. A request whose body (sent or received) is at most {@code limit} bytes therefore
 * finishes and its result is dropped, which costs less than a new connection; a larger one is
 * aborted, so a cancelled large transfer never keeps using the network.
 *
 * <p>The body size is known when the request starts (uploads, deletes, small ranges), learned when
 * the response headers arrive (whole-object and large-range downloads: a cancel before then waits
 * for them to decide), or {@link #UNBOUNDED} (listings: always aborted). Thread-safe: {@link
 * #cancel()} races with {@link #started} and {@link #learned}.
 */
public final class CancelledRequest {
  /** Body size not known until the response headers arrive. */
  public static final long UNKNOWN = -1;

  /** A body of no fixed size (a listing, a response without a length): always aborted. */
  public static final long UNBOUNDED = Long.MAX_VALUE;

  private final long limit;
  private long bytes; // guarded by this
  private boolean cancelled; // guarded by this
  private Runnable abort; // guarded by this

  /**
   * A request under the given policy.
   *
   * @param limit cancelled requests of at most this many bytes finish; 0 aborts every one
   * @param bytes the body size if known now, else {@link #UNKNOWN} or {@link #UNBOUNDED}
   */
  public CancelledRequest(long limit, long bytes) {
    if (limit < 0) {
      throw new IllegalArgumentException("limit must be >= 0, was " + limit);
    }
    if (bytes < UNKNOWN) {
      throw new IllegalArgumentException("bytes must be >= 0 or UNKNOWN, was " + bytes);
    }
    this.limit = limit;
    this.bytes = bytes;
  }

  /**
   * The size to start a ranged download with: the range's length if that is small enough to finish
   * (the body is at most that), else {@link #UNKNOWN}, because a range is a cap, not the size
   * (readM asks for up to the metadata limit and gets a few kilobytes).
   */
  public static long forRange(long limit, long rangeLength) {
    return rangeLength <= limit ? rangeLength : UNKNOWN;
  }

  private boolean abortable() {
    return bytes != UNKNOWN && bytes > limit;
  }

  /**
   * Records how to abort the running request; aborts it at once if it was cancelled already and is
   * too large to finish.
   */
  public void started(Runnable abortRequest) {
    boolean now;
    synchronized (this) {
      abort = abortRequest;
      now = cancelled && abortable();
    }
    if (now) {
      abortRequest.run();
    }
  }

  /** The caller no longer wants the result: abort a large request, let a small one finish. */
  public void cancel() {
    Runnable now = null;
    synchronized (this) {
      cancelled = true;
      if (abortable()) {
        now = abort; // null if not started yet: started() aborts it
      }
    }
    if (now != null) {
      now.run();
    }
  }

  /**
   * Records the body size the response headers announce.
   *
   * @param size the announced size, or {@link #UNBOUNDED} if the response gave none
   * @return false if the request was cancelled and is too large to finish: the caller must stop it
   *     (release the response and fail)
   */
  public synchronized boolean learned(long size) {
    if (size < 0) {
      throw new IllegalArgumentException("size must be >= 0, was " + size);
    }
    bytes = size;
    return !(cancelled && abortable());
  }
}
