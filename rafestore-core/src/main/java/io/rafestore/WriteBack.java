package io.rafestore;

import java.nio.file.Path;
import java.util.Objects;

/**
 * Write-back settings for {@link RafeStore.Builder#writeBack}: where the local journal lives and
 * how much it may hold. Immutable; each wither returns a copy and checks its argument, naming the
 * setting and the accepted range.
 *
 * <p>With a journal, {@link RafeStore#writeBack} acknowledges a write once its value and intent are
 * fsynced to the journal, and the client writes it to the clouds in the background with the normal
 * protocol. After a crash, a client built with the same directory and the same writer replays the
 * journal: every acknowledged write reaches the clouds exactly once (design.md, "Write-back
 * journal"). One client at a time may use a directory.
 *
 * <p>The bound counts the journal's files on disk ({@link #maxBytes}) and the writes not yet on the
 * clouds ({@link #maxEntries}). A write that does not fit waits for space ({@link WhenFull#WAIT},
 * the default) or fails at once with a {@link JournalException} of reason {@link
 * JournalException.Reason#FULL} ({@link WhenFull#FAIL}); nothing acknowledged is ever dropped. The
 * small records that mark a write's metadata phase and its end are never held back, so the journal
 * may exceed {@code maxBytes} by them (a few hundred bytes per write in flight).
 */
public final class WriteBack {
  /** What a write-back write does when the journal is full. */
  public enum WhenFull {
    /** Wait until uploads free space (bounded by the operation timeout). */
    WAIT,
    /** Fail at once with {@link JournalException.Reason#FULL}. */
    FAIL
  }

  /** Default {@link #maxBytes}: 256 MiB. */
  public static final long DEFAULT_MAX_BYTES = 256L * 1024 * 1024;

  /** Default {@link #maxEntries}: 100,000 writes. */
  public static final int DEFAULT_MAX_ENTRIES = 100_000;

  private final Path directory;
  private final long maxBytes;
  private final int maxEntries;
  private final WhenFull whenFull;

  private WriteBack(Path directory, long maxBytes, int maxEntries, WhenFull whenFull) {
    this.directory = directory;
    this.maxBytes = maxBytes;
    this.maxEntries = maxEntries;
    this.whenFull = whenFull;
  }

  /**
   * A journal in {@code directory} (created if missing), with the default bounds and {@link
   * WhenFull#WAIT}.
   */
  public static WriteBack journal(Path directory) {
    Objects.requireNonNull(directory, "writeBack journal directory");
    return new WriteBack(directory, DEFAULT_MAX_BYTES, DEFAULT_MAX_ENTRIES, WhenFull.WAIT);
  }

  /**
   * The most bytes the journal's files may take on disk (default 256 MiB; 64 KiB to 2^50). A value
   * whose record alone is larger is refused at once ({@link JournalException.Reason#FULL}).
   */
  public WriteBack maxBytes(long bytes) {
    if (bytes < 64 * 1024 || bytes > (1L << 50)) {
      throw new IllegalArgumentException(
          "writeBack maxBytes must be 64 KiB to 2^50 bytes, was " + bytes);
    }
    return new WriteBack(directory, bytes, maxEntries, whenFull);
  }

  /** The most writes the journal holds that are not yet on the clouds (default 100,000; >= 1). */
  public WriteBack maxEntries(int entries) {
    if (entries < 1) {
      throw new IllegalArgumentException("writeBack maxEntries must be >= 1, was " + entries);
    }
    return new WriteBack(directory, maxBytes, entries, whenFull);
  }

  /** What a write does when the journal is full (default {@link WhenFull#WAIT}). */
  public WriteBack whenFull(WhenFull policy) {
    return new WriteBack(
        directory, maxBytes, maxEntries, Objects.requireNonNull(policy, "writeBack whenFull"));
  }

  public Path directory() {
    return directory;
  }

  public long maxBytes() {
    return maxBytes;
  }

  public int maxEntries() {
    return maxEntries;
  }

  public WhenFull whenFull() {
    return whenFull;
  }

  @Override
  public String toString() {
    return "WriteBack["
        + directory
        + ", maxBytes "
        + maxBytes
        + ", maxEntries "
        + maxEntries
        + ", "
        + whenFull
        + "]";
  }
}
